/**
 * @file gemm_driver.h
 * @brief The verification and timing main shared by the GEMM chapters.
 *
 * A chapter's main.c lists its kernels and hands them to gemm_chapter_main(),
 * which does the same thing for every chapter:
 *  1. parse the shared options (options.h), exit 2 on bad input;
 *  2. find the GPU (exit 3 without one the chapter can run on);
 *  3. make seeded uniform[-1,1] inputs and a cuBLAS FP32 reference with TF32
 *     off (CUBLAS_COMPUTE_32F_PEDANTIC), itself checked against fp64 on
 *     sampled entries;
 *  4. per kernel: poison C with NaN, run once, compare every element; warm
 *     up and time with CUDA events; compare every element of the last timed
 *     result again;
 *  5. time cuBLAS the same way and print one table (or CSV / JSON).
 * A chapter with a second demonstration (chapter 04) passes it as `demo`;
 * it runs after step 2 and prints its own table.
 *
 * The problem is C = A * B with A (M x K), B (K x N) and C (M x N) FP32,
 * row-major, densely packed.
 *
 * The tensor-core line (kernels with launch_tc, built for sm_80 and later)
 * gets a second table after the first: the same seeded inputs rounded to
 * BF16, C still FP32, the reference cuBLAS with BF16 inputs and FP32
 * accumulation (`cublasGemmEx`, CUBLAS_COMPUTE_32F), itself checked in
 * fp64 on sampled entries of the rounded inputs, and the same per-element
 * verification and timing; its yardstick row is `cublas_bf16`.
 */
#ifndef TUTORIAL_GEMM_DRIVER_H
#define TUTORIAL_GEMM_DRIVER_H

#include <stdint.h>
#include <cuda_runtime_api.h>

#include "runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Signature of every GEMM launcher: C = A * B, row-major FP32.
 * @param M, N, K  problem size (each >= 1)
 * @param A  device pointer, M x K
 * @param B  device pointer, K x N
 * @param C  device pointer, M x N (every element is written)
 * @param stream  stream to launch on
 * @return the launch's error code (cudaGetLastError() after the launch)
 */
typedef cudaError_t (*gemm_launch_fn)(int M, int N, int K, const float *A, const float *B,
                                      float *C, cudaStream_t stream);

/**
 * @brief Signature of a tensor-core GEMM launcher: C = A * B with A and B
 *        BF16 (passed as their 16-bit patterns: C has no BF16 type), C FP32,
 *        all row-major; otherwise as ::gemm_launch_fn.
 */
typedef cudaError_t (*gemm_tc_launch_fn)(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                         float *C, cudaStream_t stream);

/**
 * @brief One kernel of a chapter, as the table shows it: an FP32 kernel
 *        sets launch, a tensor-core kernel launch_tc
 *        (`{"blocked_tc", .launch_tc = launch_gemm_blocked_tc, .knobs = ...}`).
 */
typedef struct {
    const char *name;            /**< short name used by --only and in the table */
    gemm_launch_fn launch;       /**< its launcher (FP32), or NULL */
    const char *knobs;           /**< its compile-time settings, printed and recorded */
    gemm_tc_launch_fn launch_tc; /**< its launcher (BF16 in, FP32 out), or NULL */
} gemm_kernel;

/** @brief Number of elements of an array (for gemm_chapter::count and friends). */
#define COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/**
 * @brief A chapter: its name, title and kernels (in teaching order), and
 *        optionally its own options and a demonstration run before the
 *        GEMMs. Written with designated initializers; what a chapter does
 *        not use stays zero.
 */
typedef struct {
    const char *chapter;        /**< folder name, e.g. "01_naive" */
    const char *title;          /**< first line of the output */
    const gemm_kernel *kernels; /**< kernels in the order the table lists them */
    int count;                  /**< number of kernels */
    option_extra *extras;       /**< the chapter's own options (NULL: none) */
    int nextras;                /**< number of entries in @p extras */
    /** @brief Another demonstration run before the GEMMs (NULL: none); returns an exit code. */
    int (*demo)(chapter_env *env);
    const char *demo_name;      /**< its names for --only, space-separated (e.g. "tasks spawn"); it runs if any is selected */
    int tc_line;                /**< 1: the chapter has tensor-core kernels (which a build for sm_80 or later has) */
} gemm_chapter;

/**
 * @brief Run a GEMM chapter: verify and time its kernels and cuBLAS.
 * @return the process exit code (exit_codes.h)
 */
int gemm_chapter_main(int argc, char **argv, const gemm_chapter *ch);

#ifdef __cplusplus
}
#endif

#endif
