/**
 * @file 03_warp_specialized/kernel_tc.h
 * @brief Launcher of chapter 03's tensor-core kernel, warp_specialized_tc (C FP32 =
 *        A BF16 x B BF16, row-major): the baseline of chapter 04's.
 *        Built for sm_80 and later (TUTORIAL_TC).
 */
#ifndef CH03_KERNEL_TC_H
#define CH03_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief double_buffer_tc with a producer warpgroup and two consumer warpgroups (setmaxnreg). */
cudaError_t launch_gemm_warp_specialized_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                            cudaStream_t stream);

extern const char gemm_warp_specialized_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=..." */

#ifdef __cplusplus
}
#endif

#endif
