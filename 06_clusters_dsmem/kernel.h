/**
 * @file 06_clusters_dsmem/kernel.h
 * @brief Launcher of chapter 06's cluster GEMM (C = A * B, row-major FP32),
 *        and the cluster demonstrations (demos/clusters.cu, demos/cluster_demo.c).
 */
#ifndef CH06_KERNEL_H
#define CH06_KERNEL_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Chapter 03's warp-specialized GEMM in clusters of CLUSTER blocks
 *        along N that copy each A tile once and share it through DSMEM
 *        (bulk copies between shared memories).
 */
cudaError_t launch_gemm_cluster(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t stream);

/** @brief cudaOccupancyMaxActiveClusters() for the GEMM's launch in clusters of @p cluster blocks. */
cudaError_t gemm_cluster_occupancy(int cluster, int *clusters);

extern const char gemm_cluster_knobs[]; /**< "... STAGES=... CLUSTER=..." */
extern const unsigned gemm_cluster_threads; /**< threads per block of the GEMM */
extern const size_t gemm_cluster_smem;      /**< dynamic shared memory per block of the GEMM, bytes */

/** @brief The cluster demonstrations (launch, occupancy, reduction, exchange); returns an exit code. */
int cluster_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
