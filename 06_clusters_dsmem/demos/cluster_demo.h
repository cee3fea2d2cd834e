/**
 * @file 06_clusters_dsmem/demos/cluster_demo.h
 * @brief Chapter 06's cluster demonstrations: launching clusters, a DSMEM
 *        reduction, block-to-block exchange (kernels in clusters.cu,
 *        the verification and timing driver in cluster_demo.c).
 */
#ifndef CH06_CLUSTER_DEMO_H
#define CH06_CLUSTER_DEMO_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XCHG_FLOAT4S 1024 /**< one exchange message: 1024 x 16 B = 16 KB per block per round */

/** @brief The compile-time cluster size of the __cluster_dims__ kernel. */
int cluster_static_size(void);
/** @brief The __cluster_dims__ kernel: each block writes rank, size and its peer's block index to out[3b..3b+2]. */
cudaError_t launch_cluster_ids_static(int *out, int blocks, cudaStream_t stream);
/** @brief The same kernel, clusters of @p cluster blocks chosen at launch (cudaLaunchKernelEx). */
cudaError_t launch_cluster_ids_runtime(int *out, int blocks, int cluster, cudaStream_t stream);

/** @brief cudaOccupancyMaxActiveClusters() for the reduction (256 threads, no dynamic shared memory). */
cudaError_t reduce_cluster_occupancy(int cluster, int *clusters);
/** @brief Sum of @p n ints into *sum: one global atomic per warp (zeroes *sum first). */
cudaError_t launch_reduce_global(const int *x, long n, unsigned long long *sum, int blocks,
                                 cudaStream_t stream);
/** @brief The same sum: one DSMEM atomic per warp into its cluster's block 0, one global atomic per cluster. */
cudaError_t launch_reduce_dsmem(const int *x, long n, unsigned long long *sum, int blocks, int cluster,
                                cudaStream_t stream);

/** @brief One run of the exchange: pairs of blocks swap 16 KB messages for @p iters rounds. */
typedef struct {
    int dsmem;   /**< 1: through the partner's shared memory, cluster.sync(); 2: the same with the
                      barrier split (arrive, other work, wait); 0: through global memory */
    int divergent; /**< 1 (with dsmem 1): warp 0 of block 0 skips the last round's cluster.sync() */
    int blocks;  /**< blocks (even: clusters of 2) */
    int iters;   /**< rounds */
    int *errors; /**< per block: threads that received a wrong element (0 when correct) */
    int *rounds; /**< per block: rounds it ran */
    float *mail; /**< the global version's slots: blocks x 2 x XCHG_FLOAT4S float4 */
    int *flags;  /**< the global version's flags: one int per block */
} exchange_args;
/** @brief Launch one exchange run (the global version resets its flags first). */
cudaError_t launch_exchange(const exchange_args *a, cudaStream_t stream);

/** @brief One ping-pong run between the two blocks of one cluster. */
typedef struct {
    int dsmem;  /**< 1: flags in each other's shared memory; 0: in global memory */
    int iters;  /**< round trips */
    int *seen;  /**< out: the last value each block saw (both must be iters) */
    int *flags; /**< the global version's two flags */
} pingpong_args;
/** @brief Launch one ping-pong run (the global version resets its flags first). */
cudaError_t launch_pingpong(const pingpong_args *a, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
