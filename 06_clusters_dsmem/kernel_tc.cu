/**
 * @file 06_clusters_dsmem/kernel_tc.cu
 * @brief Chapter 06 on the tensor cores: cluster_tc, mbarrier_tc (chapter
 *        04's fixed-order kernel with mbarriers) launched as clusters of
 *        TC_CLUSTER blocks that share their B tiles.
 *
 * The blocks of a cluster take vertically adjacent C tiles, so they need the
 * same B tile at every K step: each copies 1/TC_CLUSTER of it and hands
 * that part to its peers, shared memory to shared memory, with one bulk
 * copy each (B, not A as in kernel.cu: a B tile is twice an A tile here).
 * The peers' producers write into this block's stages, so a stage's empty
 * barrier counts the whole cluster's consumers, and its full barrier the
 * bytes of the peers' parts.
 *
 * Parent: mbarrier_tc.cu. Knobs: make help. Built for sm_90 and later.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/ptx.cuh" /* named_barrier_sync() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "../01_naive/blocked_tc.cuh" /* the tile, mma_tile(), store_tile_tc() */
#include "../02_double_buffer/async_copy_tc.cuh" /* issue_tile_tc(), stage_a_tc(), stage_b_tc() */
#include "../03_warp_specialized/regs.cuh" /* LAUNCH_REGS(), CHECK_REG_SPLIT(), warpgroup_set_registers() */
#include "../04_persistent/tile_order.cuh" /* grouped_tile_coords() */
#include "cluster.cuh" /* cluster-wide mbarriers, bulk_copy_to_peer(), cluster_launch_config() */

#if !defined(TC_STAGES) || !defined(TC_CLUSTER) || !defined(TC_GROUP) || !defined(TC_PRODUCER_REGS) || \
    !defined(TC_CONSUMER_REGS)
#error "TC_STAGES TC_CLUSTER TC_GROUP TC_PRODUCER_REGS TC_CONSUMER_REGS: set by the chapter's Makefile (make help lists them)"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */
#define TC_PART_COLS (TC_BN / TC_CLUSTER)       /**< columns of each B tile one block copies for the cluster */
#define TC_PART_BYTES (TC_B_BYTES / TC_CLUSTER) /**< those columns: whole panels, one run of shared memory */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
#define TC_BAR_FORWARD 1     /**< named barrier: the producers' parts have landed */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_cluster_tc_knobs[] =
    TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_CLUSTER) KNOB(TC_GROUP)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

namespace cg = cooperative_groups;

/**
 * @brief Hand this block's part of stage @p s's B tile to every peer, once
 *        every producer's copies into it have landed (each has waited for
 *        its own before calling).
 */
// [forward]
__device__ __forceinline__ void forward_part_tc(uint8_t *ring, uint64_t *full, int s, unsigned rank)
{
    /* The copies landed through the threads' view of shared memory (the
     * generic proxy); the copy engine reads through its own (the async
     * proxy): each writer fences, then all meet, then one thread copies. */
    fence_proxy_async();
    named_barrier_sync(TC_BAR_FORWARD, TC_PRODUCERS);
    if (threadIdx.x == 0)
        for (int q = 1; q < TC_CLUSTER; ++q)
            bulk_copy_to_peer(stage_b_tc(ring, s) + rank * TC_PART_BYTES, TC_PART_BYTES, &full[s],
                              (rank + q) % TC_CLUSTER);
}
// [forward]

/**
 * @brief Persistent cluster GEMM on the tensor cores: the blocks of a
 *        cluster take vertically adjacent C tiles together; warpgroup 0 of
 *        each copies the A tile and its part of the B tile and hands the
 *        part to the peers, warpgroups 1 and 2 multiply.
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_cluster_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = align1024(smem_raw); /* TC_STAGES x (A tile + B tile) */
    __shared__ uint64_t full[TC_STAGES];  /* stage s holds its K tile: own copies and the peers' parts landed */
    __shared__ uint64_t empty[TC_STAGES]; /* stage s may be refilled: every consumer warp of the cluster arrived */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = blockIdx.x % TC_CLUSTER */

    /* A cluster-tile: TC_CLUSTER C tiles one above the other; block rank r
     * computes the r-th. The clusters walk them in chapter 04's grouped
     * order, cluster c taking c, c + clusters, ... */
    const int tiles_m = (M + TC_BM - 1) / TC_BM, tiles_n = (N + TC_BN - 1) / TC_BN;
    const int units_m = (tiles_m + TC_CLUSTER - 1) / TC_CLUSTER, units = units_m * tiles_n;
    const int k_tiles = (K + TC_BK - 1) / TC_BK;
    const int first = blockIdx.x / TC_CLUSTER, step = gridDim.x / TC_CLUSTER;

    // [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < TC_STAGES; ++s) {
            mbar_init(&full[s], TC_PRODUCERS); /* own copies; the peers' parts count as bytes */
            mbar_init(&empty[s], TC_CLUSTER * TC_CONSUMER_WARPS);
        }
        fence_mbar_init();
    }
    /* No peer may arrive on (or copy into) this block before its barriers exist. */
    TRACE_BEGIN(t_init);
    cluster.sync();
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    // [init]

    if (threadIdx.x < TC_PRODUCERS) {
        // [producer]
        warpgroup_set_registers<TC_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
        const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
        /* Each thread's copies of a K step are its own group, as in
         * kernel.cu: it waits for them itself before it hands them over. */
        cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
        int it = 0; /* K steps issued so far, over all tiles: stage it % TC_STAGES */
        for (int u = first; u < units; u += step) {
            int um, tn;
            grouped_tile_coords(u, units_m, tiles_n, TC_GROUP, &um, &tn);
            const int m0 = (um * TC_CLUSTER + rank) * TC_BM, n0 = tn * TC_BN;
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const int s = it % TC_STAGES;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&empty[s], ((it / TC_STAGES) & 1) ^ 1); /* every block of the cluster read it */
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, kt);
                TRACE_BEGIN(t_issue);
                if (TC_CLUSTER > 1 && threadIdx.x == 0)
                    mbar_expect_tx(&full[s], (TC_CLUSTER - 1) * TC_PART_BYTES); /* the peers' parts */
                /* The whole A tile, and this block's part of the B tile. */
                issue_tile_tc<TC_PRODUCERS, TC_PART_COLS>(stage_a_tc(ring, s),
                                                          stage_b_tc(ring, s) + rank * TC_PART_BYTES, A, B, M,
                                                          N, K, m0, n0 + rank * TC_PART_COLS, kt * TC_BK, a_vec,
                                                          b_vec, threadIdx.x);
                pipe.producer_commit();
                mbar_arrive_on_copies(&full[s]); /* counts once this thread's copies have landed */
                TRACE_END(t_issue, TRACE_ISSUE, kt);
                /* The previous step's part: its copies have landed by now, or
                 * nearly (a longer lag was measured slower: see the page). */
                if (TC_CLUSTER > 1 && it >= 1) {
                    TRACE_BEGIN(t_share);
                    cuda::pipeline_consumer_wait_prior<1>(pipe); /* step it - 1's copies have landed */
                    forward_part_tc(ring, full, (it - 1) % TC_STAGES, rank);
                    TRACE_END(t_share, TRACE_SHARE, kt);
                }
            }
        }
        if (TC_CLUSTER > 1 && it >= 1) { /* the last step's part */
            cuda::pipeline_consumer_wait_prior<0>(pipe);
            forward_part_tc(ring, full, (it - 1) % TC_STAGES, rank);
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
        int it = 0;
        for (int u = first; u < units; u += step) {
            int um, tn;
            grouped_tile_coords(u, units_m, tiles_n, TC_GROUP, &um, &tn);
            float acc[TC_ACC] = {};
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const int s = it % TC_STAGES;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&full[s], (it / TC_STAGES) & 1); /* own copies and the peers' parts landed */
                TRACE_END(t_wait, TRACE_WAIT_FULL, kt);
                TRACE_BEGIN(t_math);
                mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
                mma_wait(acc); /* the tensor cores are done reading stage s */
                TRACE_END(t_math, TRACE_COMPUTE, kt);
                /* Release stage s in every block of the cluster, one arrival
                 * per warp: the peers' producers write their parts into it. */
                if (wg_thread % 32 == 0) {
                    mbar_arrive_local(&empty[s]);
                    for (int q = 1; q < TC_CLUSTER; ++q)
                        mbar_arrive_cluster_reader(&empty[s], (rank + q) % TC_CLUSTER);
                }
            }
            TRACE_BEGIN(t_store);
            store_tile_tc(C, acc, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, M, N, wg, wg_thread);
            TRACE_END(t_store, TRACE_STORE, -1);
        }
        // [consumer]
    }
    // [exit]
    /* Peers may still arrive on this block's barriers and copy from its
     * parts: no block leaves before all are done. */
    TRACE_BEGIN(t_exit);
    cluster.sync();
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    // [exit]
}
// [kernel]

/* The number of clusters that can be resident at once (asked once). */
static int resident_clusters;

// [launch]
extern "C" cudaError_t launch_gemm_cluster_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                              cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)gemm_cluster_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    if (resident_clusters == 0) {
        if ((err = resident_clusters_of((const void *)gemm_cluster_tc, TC_WS_THREADS, TC_SMEM, TC_CLUSTER,
                                        &resident_clusters)) != cudaSuccess)
            return err;
        if (resident_clusters < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
    }
    const int units = (((M + TC_BM - 1) / TC_BM + TC_CLUSTER - 1) / TC_CLUSTER) * ((N + TC_BN - 1) / TC_BN);
    const int clusters = units < resident_clusters ? units : resident_clusters;
    cluster_launch_config(&cfg, &attr, dim3(clusters * TC_CLUSTER), dim3(TC_WS_THREADS), TC_SMEM, stream,
                          dim3(TC_CLUSTER, 1, 1));
    err = cudaLaunchKernelEx(&cfg, gemm_cluster_tc, M, N, K, A, B, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
// [launch]
SMEM_REPORT(cluster_tc, TC_SMEM)
