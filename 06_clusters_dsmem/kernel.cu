/**
 * @file 06_clusters_dsmem/kernel.cu
 * @brief Chapter 06: "load once, share through DSMEM". Chapter 03's
 *        warp-specialized GEMM launched as clusters of CLUSTER blocks that
 *        sit side by side along N; the blocks of a cluster need the same
 *        A tile at every step, so each loads 1/CLUSTER of its rows from
 *        global memory and writes them into every peer's ring through
 *        distributed shared memory.
 *
 * In chapter 03, the blocks computing C tiles (m, n) and (m, n+1) both
 * read the same 128 x 32 A tile from L2 at every K step. Here block rank r
 * of a cluster reads rows [r*BM/CLUSTER, (r+1)*BM/CLUSTER) of it once and
 * stores them into the same stage of all CLUSTER blocks (its own included),
 * through pointers from `cluster.map_shared_rank()`. The consumers run
 * chapter 03's compute step on their own shared memory, unchanged.
 *
 * What changes is the hand-off. A block's stage is now written by the
 * producers of every block of the cluster, so "stage s is full" must count
 * their arrivals from across the cluster, and "stage s is free" must wait
 * for the consumers of every block that the producers write to. Each block
 * therefore holds a full and an empty mbarrier per stage, and threads arrive
 * on the barriers of all blocks of the cluster (common/cluster.cuh); a
 * `cuda::pipeline` only spans one block. The producers load through
 * registers (a thread cannot `cp.async` into another block's shared
 * memory), as chapter 01 did.
 *
 * Parent: chapter 03 (03_warp_specialized/kernel.cu), not 04: a cluster
 * shares tiles between blocks that run side by side, one C tile each, which
 * chapter 03's blocks are; `make diff-06` shows what this adds. The
 * consumers' releases with a cluster-scope fence are measured as their own
 * kernel in variants.cu.
 *
 * Knobs: BM BN BK STAGES PRODUCER_WARPS as in chapter 03; CLUSTER (1, 2, 4
 * or 8 blocks per cluster; 1 = no sharing, the same code otherwise).
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* STR(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER and their defaults */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* stage_a(), stage_b() */
#include "../common/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "dsmem_tiles.cuh" /* load_tiles(), store_a_part(), cluster_gemm_config() */

extern "C" const char gemm_cluster_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN) " STAGES=" STR(STAGES)
    " PRODUCER_WARPS=" STR(PRODUCER_WARPS) " CLUSTER=" STR(CLUSTER);

namespace cg = cooperative_groups;

/**
 * @brief Cluster GEMM: warps 0 .. PRODUCER_WARPS-1 load this block's part
 *        of A into every block of the cluster and its own B tile; the next
 *        8 warps compute the block's BM x BN tile of C.
 */
//! [kernel]
__global__ void __launch_bounds__(WS_THREADS, 1)
gemm_cluster(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), as chapter 03 */
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: every producer of the cluster arrived */
    __shared__ uint64_t empty[STAGES]; /* stage s may be refilled: every consumer of the cluster arrived */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = blockIdx.x % CLUSTER: cluster along x */
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    //! [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], CLUSTER * PRODUCER_THREADS);
            mbar_init(&empty[s], CLUSTER * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    /* No peer may arrive on (or write into) this block before its barriers
     * exist: one cluster-wide barrier, once, before the ring starts. */
    TRACE_BEGIN(t_init);
    // ---- exercise 06.1: Keep the cluster together while blocks use each other's memory ----
    // hint: a peer may write into this block, or arrive on its barriers, only after the
    // hint: barriers exist, and only until the block exits: a cluster-wide barrier at each end.
    cluster.sync();
    // ---- end of exercise 06.1 ----
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    //! [init]

    if (threadIdx.x < PRODUCER_THREADS) {
        //! [producer]
        const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
        /* Register-staged loads, one K tile ahead: tile t+1's loads are in
         * flight while the producer waits for a free stage for tile t. */
        float4 a_part[A_LOADS], b_tile[B_LOADS];
        load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, 0, a_vec, b_vec);
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            /* Every block of the cluster has released stage s (round t / STAGES). */
            TRACE_BEGIN(t_wait);
            mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
            TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
            TRACE_BEGIN(t_share);
            /* This block's A_ROWS rows of the A tile, into every block's stage s. */
            // ---- exercise 06.2: Write this block's A rows into every block of the cluster ----
            // hint: cluster.map_shared_rank(p, q) turns the address of p in this block's shared
            // hint: memory into the same place in block q's; store_a_part() writes the rows.
#pragma unroll
            for (int q = 0; q < CLUSTER; ++q)
                store_a_part(cluster.map_shared_rank(stage_a(smem, s), q), a_part, rank * A_ROWS);
            // stub: store_a_part(stage_a(smem, s), a_part, rank * A_ROWS); /* this block only */
            // ---- end of exercise 06.2 ----
            /* The whole B tile, into this block's own stage s only. */
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * PRODUCER_THREADS;
                *reinterpret_cast<float4 *>(&stage_b(smem, s)[e / (BN / 4)][(e % (BN / 4)) * 4]) = b_tile[l];
            }
            /* Each producer thread arrives on stage s's full barrier in every
             * block; the release orders its stores (local and remote) first. */
            // ---- exercise 06.3: Tell every block of the cluster that your part of stage s landed ----
            // hint: each block's full[s] counts CLUSTER * PRODUCER_THREADS arrivals: every producer
            // hint: thread arrives on it in each block q (mbar_arrive_cluster(&full[s], q)).
            for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&full[s], q);
            // stub: mbar_arrive_cluster(&full[s], rank); /* this block only */
            // ---- end of exercise 06.3 ----
            TRACE_END(t_share, TRACE_SHARE, t);
            TRACE_BEGIN(t_issue);
            if (t + 1 < tiles)
                load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, (t + 1) * BK, a_vec, b_vec);
            TRACE_END(t_issue, TRACE_ISSUE, t + 1);
        }
        //! [producer]
    } else {
        //! [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            TRACE_BEGIN(t_wait);
            mbar_wait(&full[s], (t / STAGES) & 1); /* A parts from every block, and B, landed */
            TRACE_END(t_wait, TRACE_WAIT_FULL, t);
            TRACE_BEGIN(t_math);
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            TRACE_END(t_math, TRACE_COMPUTE, t);
            /* Release stage s to every block's producers (they all write into
             * it). This thread only read the stage, so a reader's arrive without
             * a cluster-scope fence is enough (variants.cu measures the fence). */
            for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster_reader(&empty[s], q);
        }
        TRACE_BEGIN(t_store);
        store_tile(C, acc, m0, n0, M, N, tx, ty);
        TRACE_END(t_store, TRACE_STORE, -1);
        //! [consumer]
    }
    //! [exit]
    /* Peers may still arrive on this block's barriers (their last releases):
     * no block leaves, and frees its shared memory, before all are done. */
    TRACE_BEGIN(t_exit);
    // ---- exercise 06.1: Keep the cluster together while blocks use each other's memory ----
    cluster.sync();
    // ---- end of exercise 06.1 ----
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    //! [exit]
}
//! [kernel]

//! [launch]
extern "C" cudaError_t launch_gemm_cluster(int M, int N, int K, const float *A, const float *B, float *C,
                                           cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)gemm_cluster, cluster_smem);
    if (err != cudaSuccess) return err;
    cluster_gemm_config(&cfg, &attr, M, N, CLUSTER, stream);
    err = cudaLaunchKernelEx(&cfg, gemm_cluster, M, N, K, A, B, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
//! [launch]

extern "C" cudaError_t gemm_cluster_occupancy(int cluster, int *clusters)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)gemm_cluster, cluster_smem);
    if (err != cudaSuccess) return err;
    /* Sizes above 8 are "non-portable": the kernel must allow them first. */
    if (cluster > 8 &&
        (err = cudaFuncSetAttribute(gemm_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)) !=
            cudaSuccess)
        return err;
    cluster_gemm_config(&cfg, &attr, 4096, 4096, cluster, 0);
    return cudaOccupancyMaxActiveClusters(clusters, gemm_cluster, &cfg);
}
