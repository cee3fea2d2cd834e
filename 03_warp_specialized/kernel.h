/**
 * @file 03_warp_specialized/kernel.h
 * @brief Launcher of chapter 03's warp-specialized GEMM (C = A * B, row-major FP32).
 */
#ifndef CH03_KERNEL_H
#define CH03_KERNEL_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Producer warps fill a ring of STAGES tiles; consumer warps compute from it. */
cudaError_t launch_gemm_warp_specialized(int M, int N, int K, const float *A, const float *B,
                                         float *C, cudaStream_t stream);

extern const char gemm_warp_specialized_knobs[]; /**< "... STAGES=... PRODUCER_WARPS=..." */

#ifdef __cplusplus
}
#endif

#endif
