/**
 * @file stats.c
 * @brief Median/min/max of timings; GEMM flop rate.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int stats_summarize(const float *ms, int n, time_stats *out)
{
    float *s;
    int i;
    if (n < 1) return -1;
    for (i = 0; i < n; ++i)
        if (!isfinite(ms[i]) || ms[i] < 0.0f) return -1;
    s = malloc((size_t)n * sizeof *s);
    if (s == NULL) return -1;
    for (i = 0; i < n; ++i) s[i] = ms[i];
    qsort(s, (size_t)n, sizeof *s, cmp_float);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = (n % 2) ? s[n / 2] : 0.5 * ((double)s[n / 2 - 1] + s[n / 2]);
    out->count = n;
    free(s);
    return 0;
}

double gemm_tflops(long m, long n, long k, double ms)
{
    if (!(ms > 0.0)) return 0.0;
    return 2.0 * (double)m * (double)n * (double)k / (ms * 1e-3) / 1e12;
}
