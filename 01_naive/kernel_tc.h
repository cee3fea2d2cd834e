/**
 * @file 01_naive/kernel_tc.h
 * @brief Launcher of chapter 01's tensor-core kernel, blocked_tc (C FP32 =
 *        A BF16 x B BF16, row-major): the baseline of chapter 02's
 *        double_buffer_tc. Built for sm_80 and later (TUTORIAL_TC).
 */
#ifndef CH01_KERNEL_TC_H
#define CH01_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Tiles loaded synchronously into wgmma's layout, multiplied by wgmma; the baseline of chapter 02's. */
cudaError_t launch_gemm_blocked_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                   cudaStream_t stream);

extern const char gemm_blocked_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64" */

#ifdef __cplusplus
}
#endif

#endif
