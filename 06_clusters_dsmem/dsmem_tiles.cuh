/**
 * @file 06_clusters_dsmem/dsmem_tiles.cuh
 * @brief Chapter 06's pieces for sharing tiles between the blocks of a
 *        cluster, for kernel.cu and variants.cu: the block's shape, the
 *        part of each A tile a block copies for the cluster, and the launch
 *        configuration. The PTX that hands a part to the peers (a bulk copy
 *        between shared memories that completes on the peer's mbarrier) is
 *        in cluster.cuh, which the tensor-core kernel shares.
 */
#ifndef CH06_DSMEM_TILES_CUH
#define CH06_DSMEM_TILES_CUH

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER */
#include "../01_naive/blocked.cuh" /* BLOCKED_THREADS, A_PAD */
#include "../02_double_buffer/async_copy.cuh" /* RING_BYTES */
#include "cluster.cuh" /* cluster_launch_config() */

#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32) /**< threads that copy */
#define WS_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER must be 1, 2, 4 or 8 (the portable cluster sizes)");
static_assert(WS_THREADS <= 1024, "too many threads per block");

/* Block rank r of a cluster copies k rows [r*PART_K, (r+1)*PART_K) of each
 * A tile, for all BM of its m. A stage holds A transposed, As[k][m], so
 * those rows are one contiguous run of shared memory: one bulk copy per
 * peer moves them. */
#define PART_K (BK / CLUSTER) /**< k rows of each A tile that one block copies for the cluster */
#define PART_BYTES (PART_K * (BM + A_PAD) * sizeof(float)) /**< those rows of As[k][m] */
#define BAR_PRODUCERS 1 /**< named barrier: the producer warps alone (0 is __syncthreads()'s) */
static_assert(PART_K % 4 == 0 && (BM * PART_K / 4) % PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads split the A part and the B tile evenly, in whole float4s of k "
              "(CLUSTER=8 needs PRODUCER_WARPS=4)");
static_assert(PART_BYTES % 16 == 0, "a bulk copy moves a multiple of 16 bytes");

/** @brief Dynamic shared memory of one block: the ring, as chapter 03. */
static const size_t cluster_smem = RING_BYTES;

/** @brief The launch configuration for an M x N problem in clusters of @p cluster blocks of @p threads. */
static void cluster_gemm_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int M, int N, int cluster,
                                cudaStream_t stream, unsigned threads = WS_THREADS)
{
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    /* The grid must be a multiple of the cluster: round the row of tiles up
     * (the extra blocks copy their part of A and store nothing). */
    cluster_launch_config(cfg, attr, dim3((tiles_n + cluster - 1) / cluster * cluster, tiles_m), dim3(threads),
                          cluster_smem, stream, dim3(cluster, 1, 1));
}

#endif
