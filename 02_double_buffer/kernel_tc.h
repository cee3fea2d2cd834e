/**
 * @file 02_double_buffer/kernel_tc.h
 * @brief Launcher of chapter 02's tensor-core kernel, double_buffer_tc (C FP32 =
 *        A BF16 x B BF16, row-major): the baseline of chapter 03's
 *        warp_specialized_tc. Built for sm_80 and later (TUTORIAL_TC).
 */
#ifndef CH02_KERNEL_TC_H
#define CH02_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief blocked_tc with its tiles copied through a cp.async ring; the baseline of chapter 03's. */
cudaError_t launch_gemm_double_buffer_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                         cudaStream_t stream);

extern const char gemm_double_buffer_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=..." */

#ifdef __cplusplus
}
#endif

#endif
