/**
 * @file 06_clusters_dsmem/kernel_tc.h
 * @brief Launchers of chapter 06's tensor-core kernel, cluster_tc (C FP32 =
 *        A BF16 x B BF16, row-major), the baseline of chapter 07's, and of
 *        the step before it, mbarrier_tc (mbarrier_tc.cu).
 */
#ifndef CH06_KERNEL_TC_H
#define CH06_KERNEL_TC_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief persistent_static_tc with its stages handed over through mbarriers (mbarrier_tc.cu): cluster_tc's parent. */
cudaError_t launch_gemm_mbarrier_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                    cudaStream_t stream);

extern const char gemm_mbarrier_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=... TC_GROUP=... ..." */

/** @brief mbarrier_tc in clusters along M that share B tiles through DSMEM. */
cudaError_t launch_gemm_cluster_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                   cudaStream_t stream);

extern const char gemm_cluster_tc_knobs[]; /**< "TC_BM=128 TC_BN=... TC_BK=64 TC_STAGES=... TC_CLUSTER=... TC_GROUP=..." */

#ifdef __cplusplus
}
#endif

#endif
