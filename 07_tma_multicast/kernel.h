/**
 * @file 07_tma_multicast/kernel.h
 * @brief Launchers of chapter 07's TMA GEMMs (C = A * B, row-major FP32)
 *        and the staging of shapes a tensor map cannot describe.
 */
#ifndef CH07_KERNEL_H
#define CH07_KERNEL_H

#include <stddef.h>

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The warp-specialized ring with one thread issuing TMA copies (clusters of 1). */
cudaError_t launch_gemm_tma(int M, int N, int K, const float *A, const float *B, float *C, cudaStream_t stream);

/** @brief The same in clusters of CLUSTER_M x CLUSTER_N blocks; A and B tiles are multicast. */
cudaError_t launch_gemm_tma_multicast(int M, int N, int K, const float *A, const float *B, float *C,
                                      cudaStream_t stream);

/**
 * @brief What needs a staging pass before TMA can read it: bit 0 A (always
 *        with TRANSPOSE_A=1: A^T; else when K is not a multiple of 4 or A is
 *        misaligned), bit 1 B (N not a multiple of 4, or misaligned).
 */
int tma_needs_staging(int N, int K, const float *A, const float *B);

/**
 * @brief The staging pass the kernels run first when tma_needs_staging():
 *        A^T (or A with rows padded to 16 bytes) and B with padded rows;
 *        the pointers and row strides (bytes) of what was staged come back,
 *        the others are left as they are.
 */
cudaError_t tma_stage(int M, int N, int K, const float *A, const float *B, const float **Ap, const float **Bp,
                      size_t *lda, size_t *ldb, cudaStream_t stream);

extern const char gemm_tma_knobs[];           /**< "... STAGES=... CLUSTER=1x1" */
extern const char gemm_tma_multicast_knobs[]; /**< "... STAGES=... CLUSTER=MxN" */
extern const char tma_staging_a_what[]; /**< "A_transposed" or "A_padded": what staging does to A */

/** @brief When the shape needs staging, time the staging copy alone and report it; returns an exit code. */
int staging_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
