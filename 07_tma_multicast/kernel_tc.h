/**
 * @file 07_tma_multicast/kernel_tc.h
 * @brief Launchers of chapter 07's tensor-core kernels, tma_multicast_tc and
 *        its TMA-store step tma_store_tc (C FP32 = A BF16 x B BF16, row-major).
 *        Built for sm_90 and later (TUTORIAL_TC).
 */
#ifndef CH07_KERNEL_TC_H
#define CH07_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief cluster_tc fed by TMA, each part of a B tile multicast to the cluster. */
cudaError_t launch_gemm_tma_multicast_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                         cudaStream_t stream);

extern const char gemm_tma_multicast_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=... TC_CLUSTER=... TC_GROUP=... REGS=.../..." */

/** @brief tma_multicast_tc with C stored by TMA, some boxes during the next tile's K loop (store_tc.cu). */
cudaError_t launch_gemm_tma_store_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                     cudaStream_t stream);

extern const char gemm_tma_store_tc_knobs[]; /**< as gemm_tma_multicast_tc_knobs, with TC_DEFER */

#ifdef __cplusplus
}
#endif

#endif
