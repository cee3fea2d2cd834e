/**
 * @file 07_tma_multicast/kernel.h
 * @brief Launchers of chapter 07's TMA GEMMs (C = A * B, row-major FP32)
 *        and the staging of operands a tensor map cannot describe (staging.cu).
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
 * @brief What needs a staging pass (staging.cu) before TMA can read it:
 *        bit 0 A (always when @p transpose_a: A^T; else when K is not a
 *        multiple of 4 or A is misaligned), bit 1 B (N not a multiple of 4,
 *        or B misaligned).
 */
int tma_needs_staging(int N, int K, const float *A, const float *B, int transpose_a);

/**
 * @brief The staging pass the TMA kernels run first: A^T (@p transpose_a)
 *        or A with rows padded to 16 bytes, and B with padded rows, each
 *        only where tma_needs_staging() says so. The pointers and row
 *        strides (bytes) of what was staged come back; the others are left
 *        as they are.
 */
cudaError_t tma_stage(int M, int N, int K, const float *A, const float *B, int transpose_a, const float **Ap,
                      const float **Bp, size_t *lda, size_t *ldb, cudaStream_t stream);

extern const char gemm_tma_knobs[];           /**< "... STAGES=... CLUSTER=1x1" */
extern const char gemm_tma_multicast_knobs[]; /**< "... STAGES=... CLUSTER=MxN" */

/** @brief When the shape needs staging, time the staging copy alone and report it; returns an exit code. */
int staging_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
