/**
 * @file 06_clusters_dsmem/variants.cu
 * @brief Chapter 06's measured alternatives to its lesson kernel:
 *  - gemm_cluster_fenced: the consumers release each stage with a
 *    cluster-scope release (`mbarrier.arrive.release.cluster`, a fence per
 *    arrival) instead of a reader's arrive. The page measures what the
 *    reader's arrive saves here, where the producers' own fences dominate,
 *    and chapter 07 what it saves where nothing else fences.
 *  - gemm_cluster_leader: the source's pattern, "the leader loads, the
 *    followers read through DSMEM": block rank 0 loads the whole A tile
 *    into its own shared memory only, and every consumer of the cluster
 *    reads A from there; each block loads its own B tile.
 *  - gemm_cluster_bulk: sharing without registers and without fences.
 *    Chapter 03's producers, unchanged, copy a block's part of the A tile
 *    (BK/CLUSTER of its k rows) and its B tile into its own stage with
 *    cp.async; one thread then hands that part to every peer with a bulk
 *    copy between shared memories (`cp.async.bulk.shared::cluster.
 *    shared::cta`), which completes on the peer's full barrier.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* STR(), smem_opt_in() */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS CLUSTER, as kernel.cu */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "../common/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "dsmem_tiles.cuh" /* load_tiles(), store_a_part(), cluster_gemm_config() */

extern "C" const char gemm_cluster_fenced_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN) " STAGES=" STR(STAGES)
    " PRODUCER_WARPS=" STR(PRODUCER_WARPS) " CLUSTER=" STR(CLUSTER);
#define BULK_PRODUCER_WARPS 4 /**< gemm_cluster_bulk: chapter 03's producer warps, whatever PRODUCER_WARPS is */
extern "C" const char gemm_cluster_bulk_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN) " STAGES=" STR(STAGES)
    " PRODUCER_WARPS=" STR(BULK_PRODUCER_WARPS) " CLUSTER=" STR(CLUSTER) " bulk_copies";
extern "C" const char gemm_cluster_leader_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN) " STAGES=" STR(STAGES)
    " PRODUCER_WARPS=" STR(PRODUCER_WARPS) " CLUSTER=" STR(CLUSTER) " leader_loads_A";

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

/** @brief Launch a variant kernel as kernel.cu launches gemm_cluster: clusters of CLUSTER along N. */
static cudaError_t launch_variant(void (*kernel)(int, int, int, const float *, const float *, float *), int M, int N,
                                  int K, const float *A, const float *B, float *C, cudaStream_t stream,
                                  unsigned threads = WS_THREADS)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = smem_opt_in((const void *)kernel, cluster_smem);
    if (err != cudaSuccess) return err;
    cluster_gemm_config(&cfg, &attr, M, N, CLUSTER, stream, threads);
    err = cudaLaunchKernelEx(&cfg, kernel, M, N, K, A, B, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}

extern "C" cudaError_t launch_gemm_cluster_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    return launch_variant(gemm_cluster_fenced, M, N, K, A, B, C, stream);
}

#define LEADER_A_LOADS (BM * BK / 4 / PRODUCER_THREADS) /**< float4 loads of the whole A tile per producer thread */
static_assert((BM * BK / 4) % PRODUCER_THREADS == 0, "the producer threads must split the A tile evenly");

/**
 * @brief The leader loads, the followers read: rank 0's producers load the
 *        whole A tile into rank 0's ring only; every block's producers load
 *        its own B tile; every consumer reads A from rank 0's shared memory
 *        (DSMEM, through a generic pointer) and B from its own.
 *
 * The hand-offs follow from who reads what. A follower's stage is full when
 * its own producers (B) and the leader's (A) have arrived: 2 x
 * PRODUCER_THREADS arrivals; the leader's, when its own have. The leader's
 * stage may be refilled only when every consumer of the cluster has read
 * its A: CLUSTER x CONSUMER_THREADS arrivals, released at cluster scope
 * (their reads were remote); a follower's, when its own consumers are done
 * with its B.
 */
//! [leader]
__global__ void __launch_bounds__(WS_THREADS, 1)
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
            mbar_init(&full[s], leader ? PRODUCER_THREADS : 2 * PRODUCER_THREADS);
            mbar_init(&empty[s], leader ? CLUSTER * CONSUMER_THREADS : CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    cluster.sync();

    if (threadIdx.x < PRODUCER_THREADS) {
        const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
        float4 a_tile[LEADER_A_LOADS], b_tile[B_LOADS];
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES, k0 = t * BK;
#pragma unroll
            for (int l = 0; l < LEADER_A_LOADS; ++l) {
                const int e = threadIdx.x + l * PRODUCER_THREADS;
                if (leader) a_tile[l] = load4_or_zero(A, m0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, M, K, a_vec);
            }
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * PRODUCER_THREADS;
                b_tile[l] = load4_or_zero(B, k0 + e / (BN / 4), n0 + (e % (BN / 4)) * 4, K, N, b_vec);
            }
            mbar_wait(&empty[s], ((t / STAGES) & 1) ^ 1);
            if (leader) {
#pragma unroll
                for (int l = 0; l < LEADER_A_LOADS; ++l) {
                    const int e = threadIdx.x + l * PRODUCER_THREADS;
                    const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
                    stage_a(smem, s)[c + 0][r] = a_tile[l].x;
                    stage_a(smem, s)[c + 1][r] = a_tile[l].y;
                    stage_a(smem, s)[c + 2][r] = a_tile[l].z;
                    stage_a(smem, s)[c + 3][r] = a_tile[l].w;
                }
            }
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l) {
                const int e = threadIdx.x + l * PRODUCER_THREADS;
                *reinterpret_cast<float4 *>(&stage_b(smem, s)[e / (BN / 4)][(e % (BN / 4)) * 4]) = b_tile[l];
            }
            if (leader) /* A (and the leader's B): every block's stage s may use it */
                for (int q = 0; q < CLUSTER; ++q) mbar_arrive_cluster(&full[s], q);
            else /* this block's B */
                mbar_arrive_cluster(&full[s], rank);
        }
    } else {
        const int ctid = threadIdx.x - PRODUCER_THREADS;
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
//! [leader]

extern "C" cudaError_t launch_gemm_cluster_leader(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    return launch_variant(gemm_cluster_leader, M, N, K, A, B, C, stream);
}

/* ------------------------------------------------------------ bulk copies */

/* gemm_cluster_bulk keeps chapter 03's block: 4 producer warps, since its
 * copies cost about one instruction each (chapter 02's issue_tile()). */
#define BULK_PRODUCER_THREADS (BULK_PRODUCER_WARPS * 32) /**< threads that copy */
#define BULK_THREADS (BULK_PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
#define PART_K (BK / CLUSTER) /**< k rows of each A tile that one block copies for the cluster */
#define PART_BYTES (PART_K * (BM + A_PAD) * sizeof(float)) /**< those rows of As[k][m]: contiguous */
static_assert(PART_K % 4 == 0 && (BM * PART_K / 4) % BULK_PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % BULK_PRODUCER_THREADS == 0,
              "the producer threads split the A part and the B tile evenly, in whole float4s of k");
static_assert(PART_BYTES % 16 == 0, "a bulk copy moves a multiple of 16 bytes");

/** @brief `mbarrier.expect_tx`: the current phase also waits for @p bytes of asynchronous copies. */
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
}

/**
 * @brief Arrive on this block's barrier @p bar once the calling thread's
 *        cp.async copies issued so far have landed
 *        (`cp.async.mbarrier.arrive.noinc`: the barrier's count includes it).
 */
__device__ __forceinline__ void mbar_arrive_on_copies(uint64_t *bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/** @brief Arrive on this block's own barrier @p bar (release at CTA scope), without a cluster address. */
__device__ __forceinline__ void mbar_arrive_local(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/**
 * @brief Copy @p bytes at @p p in this block's shared memory to the same
 *        offset in block @p rank's, and count them on that block's barrier
 *        at @p bar's offset (`cp.async.bulk.shared::cluster.shared::cta`):
 *        the copy engine moves them, no thread of either block stores them.
 */
__device__ __forceinline__ void bulk_copy_to_peer(const void *p, unsigned bytes, uint64_t *bar, unsigned rank)
{
    uint32_t dst, remote_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(smem_addr(p)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(rank));
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "r"(smem_addr(p)), "r"(bytes), "r"(remote_bar)
                 : "memory");
}

/**
 * @brief Hand this block's part of stage @p s's A tile to every peer.
 *        Called by every producer thread once its copies into the stage
 *        have landed: the proxy fence makes what it wrote with cp.async
 *        (and its zero stores) visible to the copy engine, the named
 *        barrier waits for the other producers' parts of the same rows,
 *        and one thread issues one bulk copy per peer.
 */
__device__ __forceinline__ void forward_part(float *smem, uint64_t *full, int s, unsigned rank)
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("bar.sync 1, %0;" ::"n"(BULK_PRODUCER_THREADS) : "memory");
    if (threadIdx.x == 0)
        for (int q = 1; q < CLUSTER; ++q)
            bulk_copy_to_peer(stage_a(smem, s)[rank * PART_K], PART_BYTES, &full[s], (rank + q) % CLUSTER);
}

/**
 * @brief Chapter 03's GEMM, sharing each A tile in clusters of CLUSTER
 *        blocks along N through bulk copies between shared memories.
 *
 * Block rank r copies k rows [r*PART_K, (r+1)*PART_K) of the A tile (all
 * BM of its m, transposed as chapter 02 does) and the whole B tile into
 * its own stage with cp.async, which chapter 03's issue_tile() does with
 * only the A part changed. In As[k][m] those k rows are one contiguous
 * block of memory, so one bulk copy per peer moves them.
 *
 * Stage s of block r is full when its own producers' copies have landed
 * (each producer thread's cp.async arrival: BULK_PRODUCER_THREADS) and the
 * CLUSTER-1 parts of its peers have (expect_tx of their bytes); no thread
 * stores into a peer, so no arrival needs a cluster-scope release. A
 * producer forwards tile t's part one iteration later, after waiting for
 * its own copies of it (cp.async.wait_group 1), so tile t+1's copies are
 * already in flight while it waits. Stage s may be refilled when every
 * consumer of the cluster has read it, as in kernel.cu.
 */
//! [bulk]
__global__ void __launch_bounds__(BULK_THREADS, 1)
gemm_cluster_bulk(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                  float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), as chapter 03 */
    __shared__ uint64_t full[STAGES];
    __shared__ uint64_t empty[STAGES];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], BULK_PRODUCER_THREADS); /* own copies; peers' parts: bytes */
            mbar_init(&empty[s], CLUSTER * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    cluster.sync();

    if (threadIdx.x < BULK_PRODUCER_THREADS) {
        const bool b_vec = rows_aligned16(B, N);
        cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline(); /* cp.async groups */
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait_cta(&empty[s], ((t / STAGES) & 1) ^ 1); /* the whole cluster read it */
            if (CLUSTER > 1 && threadIdx.x == 0) mbar_expect_tx(&full[s], (CLUSTER - 1) * PART_BYTES);
            issue_tile<PART_K>(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, m0, n0, t * BK, b_vec,
                               threadIdx.x, BULK_PRODUCER_THREADS, pipe, rank * PART_K);
            pipe.producer_commit();
            mbar_arrive_on_copies(&full[s]);
            if (CLUSTER > 1 && t > 0) {
                cuda::pipeline_consumer_wait_prior<1>(pipe); /* tile t-1's copies have landed */
                forward_part(smem, full, (t - 1) % STAGES, rank);
            }
        }
        if (CLUSTER > 1 && tiles > 0) {
            cuda::pipeline_consumer_wait_prior<0>(pipe);
            forward_part(smem, full, (tiles - 1) % STAGES, rank);
        }
    } else {
        const int ctid = threadIdx.x - BULK_PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            mbar_wait_cta(&full[s], (t / STAGES) & 1); /* own copies and peers' parts landed */
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            /* Release the stage in every block: this one's without a cluster address. */
            mbar_arrive_local(&empty[s]);
            for (int q = 1; q < CLUSTER; ++q) mbar_arrive_cluster_reader(&empty[s], (rank + q) % CLUSTER);
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
    }
    /* Peers may still arrive on this block's barriers, and read its part
     * of the last stages: no block leaves before all are done. */
    cluster.sync();
}
//! [bulk]

extern "C" cudaError_t launch_gemm_cluster_bulk(int M, int N, int K, const float *A, const float *B, float *C,
                                                cudaStream_t stream)
{
    return launch_variant(gemm_cluster_bulk, M, N, K, A, B, C, stream, BULK_THREADS);
}
