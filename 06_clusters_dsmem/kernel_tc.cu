/**
 * @file 06_clusters_dsmem/kernel_tc.cu
 * @brief Chapter 06 on the tensor cores: cluster_tc, chapter 04's
 *        persistent_tc launched as clusters of TC_CLUSTER blocks that work
 *        on vertically adjacent C tiles (same columns, consecutive 128-row
 *        bands), so that they need the same B tile at every K step: each
 *        copies 1/TC_CLUSTER of it from global memory and hands that part
 *        to its peers, shared memory to shared memory, as kernel.cu does
 *        with its A tiles.
 *
 * Why B here and A in kernel.cu: a 128 x 256 tile's B tile (64 x 256 BF16,
 * 32 KB) is twice its A tile (128 x 64, 16 KB), so sharing B saves more
 * (a pair of blocks reads 2 x 16 + 32 KB per K step instead of 2 x 48).
 * On the FP32 line the FMAs bound the kernel and that traffic did not
 * matter; a tensor-core block eats a stage about seven times faster, and
 * the L2 -> SM traffic is what it waits on.
 *
 * A part of the B tile is TC_BN / 64 / TC_CLUSTER whole 64-column panels
 * of the swizzled layout: one contiguous run of shared memory that the
 * producer copies with cp.async (tile_chunks() with the part's width) and,
 * once it has landed, one thread hands to each peer with one bulk copy
 * between shared memories (`cp.async.bulk.shared::cluster.shared::cta`),
 * which lands at the same offset, and so in the same swizzle, there. The
 * hand-off lags one K step behind the copies, so that waiting for a part
 * to land never stops the producers from issuing the next one.
 *
 * A `cuda::pipeline` spans one block, so each block holds a full and an
 * empty mbarrier per stage, as kernel.cu: full[s] counts the producers'
 * copies (`cp.async.mbarrier.arrive`) and the peers' bytes
 * (`mbarrier.expect_tx`), empty[s] the releases of the whole cluster's
 * consumer warps (a peer's producer writes into this block's stage).
 *
 * Parent: chapter 04 (04_persistent/kernel_tc.cu), where kernel.cu's is
 * chapter 03. A tensor-core tile's epilogue is a large share of its time
 * and persistence is what overlaps it (chapter 04's page measures it);
 * built on chapter 03's kernel, this step would lose that and look slower
 * for a reason that has nothing to do with clusters. What changes with
 * the parent: the two blocks of a cluster must take the same pair of tiles,
 * so they walk a fixed order (the cluster's id, then every clusters-th
 * pair) instead of taking tickets from an atomic counter; every tile costs
 * the same here, so the queue balanced nothing. `make diff-tc` shows the
 * rest.
 *
 * Knobs: TC_BN, TC_STAGES as in chapter 04; TC_CLUSTER (blocks per
 * cluster along M; 1 = no sharing, the same code otherwise); TC_GROUP
 * (rows of cluster-tiles visited together, as chapter 04's GROUP).
 * Built for sm_90a only (make ARCH=sm_90a, the default on a Hopper GPU).
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
#include "cluster.cuh" /* cluster-wide mbarriers, bulk_copy_to_peer(), cluster_launch_config() */

#if !defined(TC_STAGES) || !defined(TC_CLUSTER) || !defined(TC_GROUP)
#error "TC_STAGES TC_CLUSTER TC_GROUP: set by the chapter's Makefile (make help lists them); build with make"
#endif
#include "../04_persistent/tile_order.cuh" /* grouped_tile_coords(): chapter 04's order */

static_assert(TC_STAGES >= 2 && TC_STAGES <= 8, "TC_STAGES must be 2..8");
static_assert(TC_GROUP >= 1, "TC_GROUP must be at least 1");
static_assert(TC_CLUSTER == 1 || TC_CLUSTER == 2 || TC_CLUSTER == 4, "TC_CLUSTER must be 1, 2 or 4");
static_assert(TC_BN / 64 % TC_CLUSTER == 0, "the blocks of a cluster copy whole 64-column panels of B");
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */
#define TC_PART_COLS (TC_BN / TC_CLUSTER)       /**< columns of each B tile one block copies for the cluster */
#define TC_PART_BYTES (TC_B_BYTES / TC_CLUSTER) /**< those columns: whole panels, one run of shared memory */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_LAUNCH_REGS 168   /**< registers per thread at launch: 65536 / 384, rounded down to a multiple of 8 */
/* Not chapter 04's 40 and 232: with 40, a producer thread that copies a
 * whole B tile (TC_CLUSTER=1) spills (ptxas -v); the consumers need no more
 * than 224. */
#define TC_PRODUCER_REGS 56  /**< what a producer thread keeps */
#define TC_CONSUMER_REGS 224 /**< what a consumer thread gets */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
#define TC_BAR_FORWARD 1     /**< named barrier: the producers' parts have landed */
static_assert(TC_LAUNCH_REGS == 65536 / TC_WS_THREADS / 8 * 8, "the even split of the register file at launch");
static_assert(TC_PRODUCERS * TC_PRODUCER_REGS + TC_CONSUMERS * TC_CONSUMER_REGS <= TC_WS_THREADS * TC_LAUNCH_REGS,
              "the split fits the registers the block was launched with (setmaxnreg.inc would wait forever)");

extern "C" const char gemm_cluster_tc_knobs[] =
    KNOB(TC_BM) KNOB(TC_BN) KNOB(TC_BK) KNOB(TC_STAGES) KNOB(TC_CLUSTER) KNOB(TC_GROUP);

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
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(TC_PRODUCER_REGS));
        const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
        /* Each thread's copies of a K step are its own group, as in
         * kernel.cu: it waits for them itself before it hands them over. */
        cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
        int it = 0;           /* K steps issued so far, over all tiles: stage it % TC_STAGES */
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
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(TC_CONSUMER_REGS));
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, lane = threadIdx.x % WG_THREADS;
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
                wgmma_wait(0); /* the tensor cores are done reading stage s */
                wgmma_touch(acc, TC_ACC);
                TRACE_END(t_math, TRACE_COMPUTE, kt);
                /* Release stage s in every block of the cluster, one arrival
                 * per warp: the peers' producers write their parts into it. */
                if (lane % 32 == 0) {
                    mbar_arrive_local(&empty[s]);
                    for (int q = 1; q < TC_CLUSTER; ++q)
                        mbar_arrive_cluster_reader(&empty[s], (rank + q) % TC_CLUSTER);
                }
            }
            TRACE_BEGIN(t_store);
            store_tile_tc(C, acc, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, M, N, wg, lane);
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
