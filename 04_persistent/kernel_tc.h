/**
 * @file 04_persistent/kernel_tc.h
 * @brief Launcher of chapter 04's tensor-core kernel, persistent_tc (C FP32 =
 *        A BF16 x B BF16, row-major), and its fixed-order step, static_tc.cu,
 *        the parent of chapter 06's.
 *        Built for sm_80 and later (TUTORIAL_TC).
 */
#ifndef CH04_KERNEL_TC_H
#define CH04_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief warp_specialized_tc, persistent: one block per SM takes tiles from a counter. */
cudaError_t launch_gemm_persistent_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                      cudaStream_t stream);

extern const char gemm_persistent_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=... TC_GROUP=... REGS=.../..." */

/** @brief persistent_tc in a fixed tile order (static_tc.cu): block b takes tiles b, b + grid, ...; chapter 06's parent. */
cudaError_t launch_gemm_persistent_static_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                             cudaStream_t stream);

extern const char gemm_persistent_static_tc_knobs[]; /**< as gemm_persistent_tc_knobs */

#ifdef __cplusplus
}
#endif

#endif
