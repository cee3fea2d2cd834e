/**
 * @file 04_persistent/variants.h
 * @brief Launchers of chapter 04's measured alternatives (variants.cu): the
 *        persistent GEMM with a residual epilogue, with storer warps, and
 *        with both.
 */
#ifndef CH04_VARIANTS_H
#define CH04_VARIANTS_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief C = A*B + R (R holds zeros), the consumers loading R before they store. */
cudaError_t launch_gemm_persistent_residual(int M, int N, int K, const float *A, const float *B, float *C,
                                            cudaStream_t stream);
/** @brief STORER_WARPS storer warps write tile t while the consumers compute t+1. */
cudaError_t launch_gemm_persistent_storer(int M, int N, int K, const float *A, const float *B, float *C,
                                          cudaStream_t stream);
/** @brief Both: the storers fetch R ahead and write C = A*B + R. */
cudaError_t launch_gemm_persistent_storer_residual(int M, int N, int K, const float *A, const float *B, float *C,
                                                   cudaStream_t stream);

extern const char gemm_persistent_residual_knobs[]; /**< "... GROUP=..." */
extern const char gemm_persistent_storer_knobs[];   /**< "... GROUP=... STORER_WARPS=..." */

/** @brief Two consumer groups taking tiles in turn, "ping-pong" (pingpong.cu). */
cudaError_t launch_gemm_persistent_pingpong(int M, int N, int K, const float *A, const float *B, float *C,
                                            cudaStream_t stream);
extern const char gemm_persistent_pingpong_knobs[]; /**< its tile, rings and groups */

#ifdef __cplusplus
}
#endif

#endif
