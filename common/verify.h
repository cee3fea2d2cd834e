/**
 * @file verify.h
 * @brief Element-by-element verification of a GEMM result (pure C, no GPU).
 *
 * Every element of the output is compared with a reference. The tolerance of
 * element (i,j) scales with the problem:
 *
 *     tol(i,j) = 16 * sqrt(K) * u * (|A||B|)(i,j),     u = 2^-24
 *
 * (|A||B|)(i,j) = sum_k |a_ik| |b_kj| is the scale of the rounding errors any
 * FP32 summation order makes; sqrt(K) u is the probabilistic growth of those
 * errors with K (Higham and Mary, 2019), and 16 leaves room for two
 * independently rounded results. Far below the size of a missing or extra
 * product term, so a wrong tile bound fails; NaN and Inf always fail.
 */
#ifndef TUTORIAL_VERIFY_H
#define TUTORIAL_VERIFY_H

#include <stdint.h>

/** @brief Tolerance for one element whose |A||B| entry is @p abs_dot. */
double gemm_tolerance(long k, double abs_dot);

/** @brief Outcome of compare_gemm(). */
typedef struct {
    long checked;           /**< elements compared (M*N) */
    long bad;               /**< elements outside tolerance, NaN or Inf */
    long nonfinite;         /**< of those, NaN or Inf */
    long first_row;         /**< row of the first bad element, or -1 */
    long first_col;         /**< column of the first bad element, or -1 */
    float first_got;        /**< its value */
    float first_want;       /**< the reference value */
    double max_abs_err;     /**< largest |got - want| over finite elements */
    double max_err_over_tol;/**< largest |got - want| / tol: below 1 passes */
    double rel_fro;         /**< ||got - want||_F / ||want||_F */
} compare_result;

/**
 * @brief Compare every element of @p got with @p want (both M x N, row-major).
 * @param got      the kernel's result
 * @param want     the reference
 * @param abs_dot  (|A||B|), M x N row-major, for the per-element tolerance
 * @param m, n, k  problem size
 * @param r        receives the counts and error measures
 */
void compare_gemm(const float *got, const float *want, const float *abs_dot,
                  long m, long n, long k, compare_result *r);

/** @brief 1 when compare_gemm() found no bad element, else 0. */
int compare_passed(const compare_result *r);

/** @brief Outcome of sample_check_fp64(). */
typedef struct {
    int samples;            /**< entries checked */
    int bad;                /**< entries outside tolerance (or not finite) */
    long first_row;         /**< row of the first bad entry, or -1 */
    long first_col;         /**< column of the first bad entry, or -1 */
    double max_err_over_tol;/**< largest |C - exact| / tol */
} sample_result;

/**
 * @brief Check sampled entries of @p C against an fp64 dot product on the host.
 *
 * Samples the four corners, the middle of each edge, the centre and
 * @p nrandom random entries, so the reference itself is checked
 * independently of any GPU library.
 */
void sample_check_fp64(const float *A, const float *B, const float *C,
                       long m, long n, long k, uint64_t seed, int nrandom,
                       sample_result *r);

#endif
