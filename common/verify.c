/**
 * @file verify.c
 * @brief Per-element comparison and the fp64 sample check.
 */
#include "verify.h"
#include "matrix.h"

#include <math.h>

double gemm_tolerance(long k, double abs_dot)
{
    const double u = 1.0 / 16777216.0; /* 2^-24, FP32 unit roundoff */
    /* The FLT_MIN-sized floor only matters when |A||B| is exactly 0, where
     * both results must be exactly 0 as well. */
    return 16.0 * sqrt((double)k) * u * abs_dot + 1.1754943508222875e-38;
}

void compare_gemm(const float *got, const float *want, const float *abs_dot,
                  long m, long n, long k, compare_result *r)
{
    long i, total = m * n;
    double diff2 = 0.0, ref2 = 0.0;
    r->checked = total;
    r->bad = r->nonfinite = 0;
    r->first_row = r->first_col = -1;
    r->first_got = r->first_want = 0.0f;
    r->max_abs_err = r->max_err_over_tol = 0.0;
    for (i = 0; i < total; ++i) {
        double g = got[i], w = want[i];
        double d = fabs(g - w), tol = gemm_tolerance(k, abs_dot[i]);
        int ok;
        if (!isfinite(g) || !isfinite(w)) {
            ++r->nonfinite;
            ok = 0;
        } else {
            ok = d <= tol;
            if (d > r->max_abs_err) r->max_abs_err = d;
            if (d / tol > r->max_err_over_tol) r->max_err_over_tol = d / tol;
            diff2 += d * d;
            ref2 += w * w;
        }
        if (!ok) {
            if (r->bad == 0) {
                r->first_row = i / n;
                r->first_col = i % n;
                r->first_got = got[i];
                r->first_want = want[i];
            }
            ++r->bad;
        }
    }
    r->rel_fro = ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}

int compare_passed(const compare_result *r)
{
    return r->checked > 0 && r->bad == 0;
}

static void check_entry(const float *A, const float *B, const float *C,
                        long n, long k, long i, long j, sample_result *r)
{
    double exact = 0.0, abs_dot = 0.0, err, ratio;
    long t;
    for (t = 0; t < k; ++t) {
        double p = (double)A[i * k + t] * (double)B[t * n + j];
        exact += p;
        abs_dot += fabs(p);
    }
    err = fabs((double)C[i * n + j] - exact);
    ratio = err / gemm_tolerance(k, abs_dot);
    ++r->samples;
    if (!isfinite(C[i * n + j]) || !(ratio <= 1.0)) {
        if (r->bad == 0) {
            r->first_row = i;
            r->first_col = j;
        }
        ++r->bad;
    }
    if (isfinite(ratio) && ratio > r->max_err_over_tol) r->max_err_over_tol = ratio;
}

void sample_check_fp64(const float *A, const float *B, const float *C,
                       long m, long n, long k, uint64_t seed, int nrandom,
                       sample_result *r)
{
    const long rows[9] = {0, 0, m - 1, m - 1, 0, m - 1, m / 2, m / 2, m / 2};
    const long cols[9] = {0, n - 1, 0, n - 1, n / 2, n / 2, 0, n - 1, n / 2};
    uint64_t state = seed ^ 0x5A5A5A5A5A5A5A5Aull;
    int s;
    r->samples = r->bad = 0;
    r->first_row = r->first_col = -1;
    r->max_err_over_tol = 0.0;
    for (s = 0; s < 9; ++s)
        check_entry(A, B, C, n, k, rows[s], cols[s], r);
    for (s = 0; s < nrandom; ++s) {
        long i = (long)(rng_next(&state) % (uint64_t)m);
        long j = (long)(rng_next(&state) % (uint64_t)n);
        check_entry(A, B, C, n, k, i, j, r);
    }
}
