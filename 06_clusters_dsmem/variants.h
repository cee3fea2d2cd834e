/**
 * @file 06_clusters_dsmem/variants.h
 * @brief Chapter 06's measured alternatives to its lesson kernel (variants.cu).
 */
#ifndef CH06_VARIANTS_H
#define CH06_VARIANTS_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Sharing through registers: the producers store their part of A into every block (DSMEM stores). */
cudaError_t launch_gemm_cluster_registers(int M, int N, int K, const float *A, const float *B, float *C,
                                          cudaStream_t stream);
extern const char gemm_cluster_registers_knobs[]; /**< "... PRODUCER_WARPS=8 CLUSTER=... registers" */

/** @brief gemm_cluster_registers with the consumers' releases at cluster scope (a fence per arrival). */
cudaError_t launch_gemm_cluster_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                       cudaStream_t stream);
extern const char gemm_cluster_fenced_knobs[]; /**< "... CLUSTER=... registers fenced_release" */

/** @brief The leader loads the A tile, every consumer of the cluster reads it from the leader (variants.cu). */
cudaError_t launch_gemm_cluster_leader(int M, int N, int K, const float *A, const float *B, float *C,
                                       cudaStream_t stream);
extern const char gemm_cluster_leader_knobs[]; /**< "... CLUSTER=... leader_loads_A" */

#ifdef __cplusplus
}
#endif

#endif
