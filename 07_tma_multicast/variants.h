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

/** @brief The multicast GEMM with the consumers' releases at cluster scope (a fence per arrival). */
cudaError_t launch_gemm_tma_multicast_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                             cudaStream_t stream);

/** @brief The multicast GEMM reading A as it lies (row-major, 128-byte swizzle): no transpose pass. */
cudaError_t launch_gemm_tma_multicast_swizzled(int M, int N, int K, const float *A, const float *B, float *C,
                                               cudaStream_t stream);

extern const char gemm_tma_multicast_fenced_knobs[];   /**< "... STAGES=... CLUSTER=MxN" */
extern const char gemm_tma_multicast_swizzled_knobs[]; /**< "... STAGES=... CLUSTER=MxN" */

#ifdef __cplusplus
}
#endif

#endif
