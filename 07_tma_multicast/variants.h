/**
 * @file 07_tma_multicast/variants.h
 * @brief Chapter 07's measured alternatives to its multicast kernel (variants.cu).
 */
#ifndef CH07_VARIANTS_H
#define CH07_VARIANTS_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The multicast ring with chapter 06's block (128 x 128, 8 x 8 per thread), A read as it lies (128-byte swizzle, no pass). */
cudaError_t launch_gemm_tma128_swizzled(int M, int N, int K, const float *A, const float *B, float *C,
                                        cudaStream_t stream);

/** @brief The same with A^T written by a staging pass, read by chapter 01's compute step. */
cudaError_t launch_gemm_tma128_transposed(int M, int N, int K, const float *A, const float *B, float *C,
                                          cudaStream_t stream);

/** @brief tma128_transposed with the consumers' releases at cluster scope (a fence per arrival). */
cudaError_t launch_gemm_tma128_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                      cudaStream_t stream);

extern const char gemm_tma128_swizzled_knobs[];   /**< "BM=128 ... STAGES=... CLUSTER=MxN" */
extern const char gemm_tma128_transposed_knobs[]; /**< "BM=128 ... STAGES=... CLUSTER=MxN" */
extern const char gemm_tma128_fenced_knobs[];     /**< "BM=128 ... STAGES=... CLUSTER=MxN" */

#ifdef __cplusplus
}
#endif

#endif
