/**
 * @file 04_persistent/kernel.h
 * @brief Launcher of chapter 04's persistent GEMM (C = A * B, row-major FP32).
 */
#ifndef CH04_KERNEL_H
#define CH04_KERNEL_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Chapter 03's warp-specialized GEMM, persistent: resident blocks take
 *        output tiles from an atomic counter (reset in @p stream first).
 */
cudaError_t launch_gemm_persistent(int M, int N, int K, const float *A, const float *B, float *C,
                                   cudaStream_t stream);

extern const char gemm_persistent_knobs[]; /**< "... STORER_WARPS=... GROUP=..." */

#ifdef __cplusplus
}
#endif

#endif
