/**
 * @file 06_clusters_dsmem/kernel.cu
 * @brief Chapter 06: gemm_cluster, chapter 03's warp-specialized GEMM
 *        launched as clusters of CLUSTER blocks that share their A tiles.
 *
 * The blocks of a cluster sit side by side along N and need the same A
 * tile at every K step: each copies 1/CLUSTER of it and hands that part to
 * its peers with one bulk copy between shared memories. A stage is then
 * written by the whole cluster, so mbarriers that count the cluster's
 * consumers replace the block-wide `cuda::pipeline` (cluster.cuh).
 * variants.cu measures other ways of sharing.
 *
 * Parent: 03_warp_specialized/kernel.cu (one C tile per block, as a
 * cluster's blocks are). Knobs: make help.
 */

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER (the Makefile sets them) */
#include "../01_naive/blocked.cuh" /* compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "cluster.cuh" /* cluster-wide mbarriers, bulk_copy_to_peer(), cluster_launch_config() */
#include "dsmem_tiles.cuh" /* PART_K, cluster_gemm_config() */

extern "C" const char gemm_cluster_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(STAGES) KNOB(PRODUCER_WARPS) KNOB(CLUSTER);
extern "C" const unsigned gemm_cluster_threads = WS_THREADS;
extern "C" const size_t gemm_cluster_smem = cluster_smem;

namespace cg = cooperative_groups;

/**
 * @brief Hand this block's part of stage @p s's A tile to every peer.
 *        Every producer thread calls it once its own copies into the stage
 *        have landed.
 */
// [forward]
__device__ __forceinline__ void forward_part(float *smem, uint64_t *full, int s, unsigned rank)
{
    /* The copies landed through the threads' view of shared memory (the
     * generic proxy); the copy engine reads through its own (the async
     * proxy): fence, so that it sees them. */
    fence_proxy_async();
    /* Every producer's rows of the part, not only this thread's. */
    named_barrier_sync(BAR_PRODUCERS, PRODUCER_THREADS);
    if (threadIdx.x == 0) {
        // ---- exercise 06.2: Hand this block's part of the A tile to every peer ----
        // hint: one bulk copy per peer q (every rank but this one): bulk_copy_to_peer() copies the
        // hint: part's PART_BYTES, from its first row stage_a(smem, s)[rank * PART_K], to q's stage s.
        for (int q = 1; q < CLUSTER; ++q)
            bulk_copy_to_peer(stage_a(smem, s)[rank * PART_K], PART_BYTES, &full[s], (rank + q) % CLUSTER);
        // ---- end of exercise 06.2 ----
    }
}
// [forward]

/**
 * @brief Cluster GEMM: warps 0 .. PRODUCER_WARPS-1 copy this block's part
 *        of the A tile and its B tile, and hand the part to the peers; the
 *        next 8 warps compute the block's BM x BN tile of C.
 */
// [kernel]
__global__ void __launch_bounds__(WS_THREADS, 1)
gemm_cluster(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), as chapter 03 */
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: own copies and the peers' parts landed */
    __shared__ uint64_t empty[STAGES]; /* stage s may be refilled: every consumer of the cluster arrived */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = blockIdx.x % CLUSTER: cluster along x */
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    // [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], PRODUCER_THREADS); /* own copies; the peers' parts count as bytes */
            mbar_init(&empty[s], CLUSTER * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    /* No peer may arrive on (or copy into) this block before its barriers
     * exist: one cluster-wide barrier, once, before the ring starts. */
    TRACE_BEGIN(t_init);
    // ---- exercise 06.1: Keep the cluster together while blocks use each other's memory ----
    // hint: a peer may copy into this block, or arrive on its barriers, only after the
    // hint: barriers exist, and only until the block exits: a cluster-wide barrier at each end.
    cluster.sync();
    // ---- end of exercise 06.1 ----
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    // [init]

    if (threadIdx.x < PRODUCER_THREADS) {
        // [producer]
        const bool b_vec = rows_aligned16(B, N);
        /* Each thread's copies are its own cp.async group: it waits for
         * them itself before it forwards the part. */
        cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            TRACE_BEGIN(t_wait);
            mbar_wait_cta(&empty[s], ((t / STAGES) & 1) ^ 1); /* every block of the cluster read it */
            TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
            TRACE_BEGIN(t_issue);
            // ---- exercise 06.3: Tell full[s] how many bytes the peers will copy into stage s ----
            // hint: full[s] completes when its PRODUCER_THREADS arrivals are in and the bytes it
            // hint: expects have landed; one thread announces the CLUSTER-1 parts (mbar_expect_tx).
            if (CLUSTER > 1 && threadIdx.x == 0) mbar_expect_tx(&full[s], (CLUSTER - 1) * PART_BYTES);
            // ---- end of exercise 06.3 ----
            /* This block's PART_K k rows of the A tile, and the whole B tile. */
            issue_tile<PART_K>(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, m0, n0, t * BK, b_vec,
                               threadIdx.x, PRODUCER_THREADS, pipe, rank * PART_K);
            pipe.producer_commit();
            mbar_arrive_on_copies(&full[s]); /* counts once this thread's copies have landed */
            TRACE_END(t_issue, TRACE_ISSUE, t);
            /* Hand the part to the peers once this thread's copies have
             * landed. The wait is short: most have landed by the time the
             * last is issued (the page measures forwarding a tile later). */
            if (CLUSTER > 1) {
                TRACE_BEGIN(t_share);
                cuda::pipeline_consumer_wait_prior<0>(pipe); /* tile t's copies have landed */
                forward_part(smem, full, s, rank);
                TRACE_END(t_share, TRACE_SHARE, t);
            }
        }
        // [producer]
    } else {
        // [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            TRACE_BEGIN(t_wait);
            mbar_wait_cta(&full[s], (t / STAGES) & 1); /* own copies and the peers' parts landed */
            TRACE_END(t_wait, TRACE_WAIT_FULL, t);
            TRACE_BEGIN(t_math);
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            TRACE_END(t_math, TRACE_COMPUTE, t);
            /* Release stage s in every block: each peer's producers forward
             * their part into it. This thread only read the stage, so a
             * reader's arrive, without a cluster-scope fence, is enough. */
            mbar_arrive_local(&empty[s]);
            for (int q = 1; q < CLUSTER; ++q) mbar_arrive_cluster_reader(&empty[s], (rank + q) % CLUSTER);
        }
        TRACE_BEGIN(t_store);
        store_tile(C, acc, m0, n0, M, N, tx, ty);
        TRACE_END(t_store, TRACE_STORE, -1);
        // [consumer]
    }
    // [exit]
    /* Peers may still arrive on this block's barriers, and their copy
     * engines read its part of the last stages: no block leaves, and frees
     * its shared memory, before all are done. */
    TRACE_BEGIN(t_exit);
    // ---- exercise 06.1: Keep the cluster together while blocks use each other's memory ----
    cluster.sync();
    // ---- end of exercise 06.1 ----
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    // [exit]
}
// [kernel]

// [launch]
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
// [launch]
SMEM_REPORT(cluster, RING_BYTES)

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
