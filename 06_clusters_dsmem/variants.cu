/**
 * @file 06_clusters_dsmem/variants.cu
 * @brief Chapter 06's measured alternative to its lesson kernel:
 *  - gemm_cluster_fenced: the consumers release each stage with a
 *    cluster-scope release (`mbarrier.arrive.release.cluster`, a fence per
 *    arrival) instead of a reader's arrive. The page measures what the
 *    reader's arrive saves here, where the producers' own fences dominate,
 *    and chapter 07 what it saves where nothing else fences.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* STR(), smem_opt_in() */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER, as kernel.cu */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* stage_a(), stage_b() */
#include "../common/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "dsmem_tiles.cuh" /* load_tiles(), store_a_part(), cluster_gemm_config() */

extern "C" const char gemm_cluster_fenced_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN) " STAGES=" STR(STAGES)
    " PRODUCER_WARPS=" STR(PRODUCER_WARPS) " CLUSTER=" STR(CLUSTER);

namespace cg = cooperative_groups;

/**
 * @brief kernel.cu's gemm_cluster, except that a consumer releases a stage
 *        with a cluster-scope release (a fence per arrival) instead of a
 *        reader's arrive.
 */
__global__ void __launch_bounds__(WS_THREADS, 1)
gemm_cluster_fenced(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                    float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), as chapter 03 */
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: every producer of the cluster arrived */
    __shared__ uint64_t empty[STAGES]; /* stage s may be refilled: every consumer of the cluster arrived */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = blockIdx.x % CLUSTER: cluster along x */
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], CLUSTER * PRODUCER_THREADS);
            mbar_init(&empty[s], CLUSTER * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    /* No peer may arrive on (or write into) this block before its barriers
     * exist: one cluster-wide barrier, once, before the ring starts. */
    cluster.sync();

    if (threadIdx.x < PRODUCER_THREADS) {
        const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
        /* Register-staged loads, one K tile ahead: tile t+1's loads are in
         * flight while the producer waits for a free stage for tile t. */
        float4 a_part[A_LOADS], b_tile[B_LOADS];
        load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, 0, a_vec, b_vec);
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            /* Every block of the cluster has released stage s (round t / STAGES). */
            mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
            /* This block's A_ROWS rows of the A tile, into every block's stage s. */
#pragma unroll
            for (int q = 0; q < CLUSTER; ++q)
                store_a_part(cluster.map_shared_rank(stage_a(smem, s), q), a_part, rank * A_ROWS);
            /* The whole B tile, into this block's own stage s only. */
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * PRODUCER_THREADS;
                *reinterpret_cast<float4 *>(&stage_b(smem, s)[e / (BN / 4)][(e % (BN / 4)) * 4]) = b_tile[l];
            }
            /* Each producer thread arrives on stage s's full barrier in every
             * block; the release orders its stores (local and remote) first. */
            for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&full[s], q);
            if (t + 1 < tiles)
                load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, (t + 1) * BK, a_vec, b_vec);
        }
    } else {
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait(&full[s], (t / STAGES) & 1); /* A parts from every block, and B, landed */
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            //! [fenced release]
            /* The only change: a release at cluster scope, as the producers'
             * arrivals make, although this thread wrote nothing to order. */
            for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&empty[s], q);
            //! [fenced release]
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
    }
    /* Peers may still arrive on this block's barriers (their last releases):
     * no block leaves, and frees its shared memory, before all are done. */
    cluster.sync();
}

extern "C" cudaError_t launch_gemm_cluster_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)gemm_cluster_fenced, cluster_smem);
    if (err != cudaSuccess) return err;
    cluster_gemm_config(&cfg, &attr, M, N, CLUSTER, stream);
    err = cudaLaunchKernelEx(&cfg, gemm_cluster_fenced, M, N, K, A, B, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
