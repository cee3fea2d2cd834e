/**
 * @file 06_clusters_dsmem/variants.cu
 * @brief Chapter 06's measured alternatives to its lesson kernel, both
 *        sharing the A tile through threads rather than a copy engine:
 *  - gemm_cluster_registers: the producers load their part of the A tile
 *    into registers and store it into every block's stage through DSMEM
 *    (a thread cannot cp.async into another block), then release those
 *    stores with a cluster-scope arrive on every block's full barrier.
 *    gemm_cluster_fenced is the same kernel with the consumers' releases
 *    at cluster scope too (a fence per arrival) instead of a reader's
 *    arrive: the page measures what the reader's arrive saves here, where
 *    the producers' own fences dominate, and chapter 07 where nothing
 *    else fences.
 *  - gemm_cluster_leader: the book's pattern, "the leader loads, the
 *    followers read through DSMEM": block rank 0 loads the whole A tile
 *    into its own shared memory only, and every consumer of the cluster
 *    reads A from there; each block loads its own B tile.
 * Both load through registers with 8 producer warps (4 when CLUSTER=8, whose
 * A parts are too small to split between 256 threads), their best setting
 * in the measurements, whatever PRODUCER_WARPS is.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER, as kernel.cu */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* stage_a(), stage_b() */
#include "cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "dsmem_tiles.cuh" /* CONSUMER_THREADS, cluster_smem, cluster_gemm_config() */

#if CLUSTER == 8
#define REG_PRODUCER_WARPS 4 /**< the variants' producer warps (an A part of 16 rows has 128 float4s) */
#else
#define REG_PRODUCER_WARPS 8 /**< the variants' producer warps */
#endif
#define REG_PRODUCER_THREADS (REG_PRODUCER_WARPS * 32)  /**< threads that load */
#define REG_THREADS (REG_PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
#define A_ROWS (BM / CLUSTER) /**< gemm_cluster_registers: rows of each A tile one block loads for the cluster */
#define A_LOADS (A_ROWS * BK / 4 / REG_PRODUCER_THREADS) /**< float4 loads of A per producer thread per tile */
#define B_LOADS (BK * BN / 4 / REG_PRODUCER_THREADS)     /**< float4 loads of B per producer thread per tile */
static_assert((A_ROWS * BK / 4) % REG_PRODUCER_THREADS == 0 && (BK * BN / 4) % REG_PRODUCER_THREADS == 0,
              "the producer threads must split the A part and the B tile evenly");

/** @brief The knobs string of a variant, ending with @p extra. */
#define VARIANT_KNOBS(extra) \
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(STAGES) " PRODUCER_WARPS=" STR(REG_PRODUCER_WARPS) KNOB(CLUSTER) extra
extern "C" const char gemm_cluster_registers_knobs[] = VARIANT_KNOBS(" registers");
extern "C" const char gemm_cluster_fenced_knobs[] = VARIANT_KNOBS(" registers fenced_release");
extern "C" const char gemm_cluster_leader_knobs[] = VARIANT_KNOBS(" leader_loads_A");

namespace cg = cooperative_groups;

/**
 * @brief A producer thread's share of K tile @p k0: its pieces of the
 *        block's A_ROWS rows of the A tile (rows from @p a_row0) and of
 *        the B tile, into registers (zeros outside the matrices).
 */
__device__ __forceinline__ void load_tiles(float4 a_part[A_LOADS], float4 b_tile[B_LOADS],
                                           const float *__restrict__ A, const float *__restrict__ B, int M,
                                           int N, int K, int a_row0, int n0, int k0, bool a_vec, bool b_vec)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
        a_part[l] = load4_or_zero(A, a_row0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, M, K, a_vec);
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
        const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
        b_tile[l] = load4_or_zero(B, k0 + e / (BN / 4), n0 + (e % (BN / 4)) * 4, K, N, b_vec);
    }
}

/**
 * @brief Store the thread's pieces of the A part (tile rows from @p row0)
 *        into the A tile @p As of a stage, transposed as chapter 01 does;
 *        @p As may point into a peer block's shared memory (DSMEM).
 */
__device__ __forceinline__ void store_a_part(float (*As)[BM + A_PAD], const float4 a_part[A_LOADS], int row0)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
        const int r = row0 + e / (BK / 4), c = (e % (BK / 4)) * 4;
        As[c + 0][r] = a_part[l].x;
        As[c + 1][r] = a_part[l].y;
        As[c + 2][r] = a_part[l].z;
        As[c + 3][r] = a_part[l].w;
    }
}

/**
 * @brief Sharing through registers: block rank r loads rows
 *        [r*A_ROWS, (r+1)*A_ROWS) of the A tile into registers and stores
 *        them into the same stage of every block of the cluster, through
 *        pointers from `cluster.map_shared_rank()`; each block loads its
 *        own B tile. With @p FencedRelease, the consumers release a stage at
 *        cluster scope (gemm_cluster_fenced), else with a reader's arrive.
 *
 * A block's stage is written by the producers of every block, so full[s]
 * counts CLUSTER x REG_PRODUCER_THREADS arrivals, each a cluster-scope
 * release of the thread's DSMEM stores (a memory barrier per arrival).
 */
// [registers]
template <bool FencedRelease>
__global__ void __launch_bounds__(REG_THREADS, 1)
gemm_cluster_registers(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
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
            mbar_init(&full[s], CLUSTER * REG_PRODUCER_THREADS);
            mbar_init(&empty[s], CLUSTER * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    cluster.sync(); /* the barriers exist before any peer writes or arrives */

    if (threadIdx.x < REG_PRODUCER_THREADS) {
        const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
        /* Register-staged loads, one K tile ahead: tile t+1's loads are in
         * flight while the producer waits for a free stage for tile t. */
        float4 a_part[A_LOADS], b_tile[B_LOADS];
        load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, 0, a_vec, b_vec);
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1); /* every block of the cluster released it */
            /* This block's A_ROWS rows of the A tile, into every block's stage s. */
#pragma unroll
            for (int q = 0; q < CLUSTER; ++q)
                store_a_part(cluster.map_shared_rank(stage_a(smem, s), q), a_part, rank * A_ROWS);
            /* The whole B tile, into this block's own stage s only. */
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
                *reinterpret_cast<float4 *>(&stage_b(smem, s)[e / (BN / 4)][(e % (BN / 4)) * 4]) = b_tile[l];
            }
            /* Arrive on stage s's full barrier in every block; the release
             * orders this thread's stores (local and remote) first. */
            for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&full[s], q);
            if (t + 1 < tiles)
                load_tiles(a_part, b_tile, A, B, M, N, K, m0 + rank * A_ROWS, n0, (t + 1) * BK, a_vec, b_vec);
        }
    } else {
        const int ctid = threadIdx.x - REG_PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait(&full[s], (t / STAGES) & 1); /* A parts from every block, and B, landed */
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            // [fenced release]
            /* Release stage s to every block's producers. This thread only
             * read it: a reader's arrive is enough; gemm_cluster_fenced
             * makes a cluster-scope release, as the producers' arrivals. */
            for (int q = 0; q < CLUSTER; ++q) {
                if (FencedRelease)
                    mbar_arrive_cluster(&empty[s], q);
                else
                    mbar_arrive_cluster_reader(&empty[s], q);
            }
            // [fenced release]
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
    }
    /* Peers may still arrive on this block's barriers (their last releases):
     * no block leaves, and frees its shared memory, before all are done. */
    cluster.sync();
}
// [registers]

/** @brief Launch a variant kernel in clusters of CLUSTER along N, as kernel.cu does, with REG_THREADS per block. */
static cudaError_t launch_variant(void (*kernel)(int, int, int, const float *, const float *, float *), int M, int N,
                                  int K, const float *A, const float *B, float *C, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)kernel, cluster_smem);
    if (err != cudaSuccess) return err;
    cluster_gemm_config(&cfg, &attr, M, N, CLUSTER, stream, REG_THREADS);
    err = cudaLaunchKernelEx(&cfg, kernel, M, N, K, A, B, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}

extern "C" cudaError_t launch_gemm_cluster_registers(int M, int N, int K, const float *A, const float *B,
                                                     float *C, cudaStream_t stream)
{
    return launch_variant(gemm_cluster_registers<false>, M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_cluster_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    return launch_variant(gemm_cluster_registers<true>, M, N, K, A, B, C, stream);
}

#define LEADER_A_LOADS (BM * BK / 4 / REG_PRODUCER_THREADS) /**< float4 loads of the whole A tile per producer thread */
static_assert((BM * BK / 4) % REG_PRODUCER_THREADS == 0, "the producer threads must split the A tile evenly");

/**
 * @brief The leader loads, the followers read: rank 0's producers load the
 *        whole A tile into rank 0's ring only; every block's producers load
 *        its own B tile; every consumer reads A from rank 0's shared memory
 *        (DSMEM, through a generic pointer) and B from its own.
 *
 * The hand-offs follow from who reads what. A follower's stage is full when
 * its own producers (B) and the leader's (A) have arrived: 2 x
 * REG_PRODUCER_THREADS arrivals; the leader's, when its own have. The leader's
 * stage may be refilled only when every consumer of the cluster has read
 * its A: CLUSTER x CONSUMER_THREADS arrivals, released at cluster scope
 * (their reads were remote); a follower's, when its own consumers are done
 * with its B.
 */
// [leader]
__global__ void __launch_bounds__(REG_THREADS, 1)
gemm_cluster_leader(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                    float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile); followers use B only */
    __shared__ uint64_t full[STAGES];
    __shared__ uint64_t empty[STAGES];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const bool leader = rank == 0;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], leader ? REG_PRODUCER_THREADS : 2 * REG_PRODUCER_THREADS);
            mbar_init(&empty[s], leader ? CLUSTER * CONSUMER_THREADS : CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    cluster.sync();

    if (threadIdx.x < REG_PRODUCER_THREADS) {
        const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
        float4 a_tile[LEADER_A_LOADS], b_tile[B_LOADS];
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES, k0 = t * BK;
#pragma unroll
            for (int l = 0; l < LEADER_A_LOADS; ++l) {
                const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
                if (leader) a_tile[l] = load4_or_zero(A, m0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, M, K, a_vec);
            }
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
                b_tile[l] = load4_or_zero(B, k0 + e / (BN / 4), n0 + (e % (BN / 4)) * 4, K, N, b_vec);
            }
            mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
            if (leader) {
#pragma unroll
                for (int l = 0; l < LEADER_A_LOADS; ++l) {
                    const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
                    const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
                    stage_a(smem, s)[c + 0][r] = a_tile[l].x;
                    stage_a(smem, s)[c + 1][r] = a_tile[l].y;
                    stage_a(smem, s)[c + 2][r] = a_tile[l].z;
                    stage_a(smem, s)[c + 3][r] = a_tile[l].w;
                }
            }
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * REG_PRODUCER_THREADS;
                *reinterpret_cast<float4 *>(&stage_b(smem, s)[e / (BN / 4)][(e % (BN / 4)) * 4]) = b_tile[l];
            }
            if (leader) /* A (and the leader's B): every block's stage s may use it */
                for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&full[s], q);
            else /* this block's B */
                mbar_arrive_cluster(&full[s], rank);
        }
    } else {
        const int ctid = threadIdx.x - REG_PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait(&full[s], (t / STAGES) & 1);
            compute_tile(acc, cluster.map_shared_rank(stage_a(smem, s), 0), stage_b(smem, s), tx, ty);
            if (leader) {
                mbar_arrive_cluster_reader(&empty[s], 0);
            } else {
                mbar_arrive_cluster_reader(&empty[s], rank); /* done with this block's B */
                mbar_arrive_cluster(&empty[s], 0);           /* and with the leader's A: remote reads */
            }
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
    }
    cluster.sync();
}
// [leader]

extern "C" cudaError_t launch_gemm_cluster_leader(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    return launch_variant(gemm_cluster_leader, M, N, K, A, B, C, stream);
}
SMEM_REPORT(cluster_registers, RING_BYTES)
SMEM_REPORT(cluster_fenced, RING_BYTES)
SMEM_REPORT(cluster_leader, RING_BYTES)
