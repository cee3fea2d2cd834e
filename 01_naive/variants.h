/**
 * @file 01_naive/variants.h
 * @brief Launchers of the two steps before chapter 01's lesson kernel
 *        (variants.cu): the naive and the tiled GEMM.
 */
#ifndef CH01_VARIANTS_H
#define CH01_VARIANTS_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One thread per element of C, operands straight from global memory. */
cudaError_t launch_gemm_naive(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t stream);
/** @brief Shared-memory tiles, one element of C per thread, synchronous loads. */
cudaError_t launch_gemm_tiled(int M, int N, int K, const float *A, const float *B, float *C,
                              cudaStream_t stream);

extern const char gemm_naive_knobs[]; /**< "block=32x8" */
extern const char gemm_tiled_knobs[]; /**< "TILE=..." */

#ifdef __cplusplus
}
#endif

#endif
