/**
 * @file 07_tma_multicast/kernel.cu
 * @brief Chapter 07: gemm_tma and gemm_tma_multicast, chapter 06's
 *        cluster ring fed by the Tensor Memory Accelerator, then with
 *        multicast.
 *
 * One producer thread issues one TMA copy per tile, named by coordinates
 * in a tensor map made on the host (tensor_map.c); the stage's full
 * barrier expects its bytes. With CLUSTER_M x CLUSTER_N > 1 each copy of a
 * slice is multicast to every block of the cluster's row or column that
 * needs it. With one copying thread the block becomes a producer
 * warpgroup and two consumer warpgroups on a 256 x 128 tile, and
 * `setmaxnreg` (regs.cuh) moves registers to the consumers. A^T is staged
 * first (staging.cu); variants.cu keeps chapter 06's 128 x 128 block.
 *
 * Parent: 06_clusters_dsmem/kernel.cu. Knobs: make help.
 */

#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "knobs.h" /* STAGES CLUSTER_M CLUSTER_N (the Makefile sets them) */
#include "../01_naive/guarded.cuh" /* store4_guarded(), rows_aligned16() */
#include "../06_clusters_dsmem/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "tma.cuh" /* TMA copies that complete on them */
#include "../03_warp_specialized/regs.cuh" /* CHECK_REG_SPLIT(), warpgroup_set_registers() */
#include "tensor_map.h" /* tma_map_2d(): tensor maps on the host */

/* The block: one producer warpgroup, of which one thread issues the copies,
 * and two consumer warpgroups that compute a 256 x 128 tile of C, each
 * thread a 16 x 8 block of it. */
#define BM 256 /**< rows of C per block (chapters 01-06: 128) */
#define BN 128 /**< columns of C per block */
#define BK 16  /**< K per tile */
#define TM 16  /**< rows of C per thread: four groups of 4, BM/4 apart */
#define TN 8   /**< columns of C per thread: two groups of 4, BN/2 apart (as chapter 01) */
#define CONSUMER_THREADS ((BM / TM) * (BN / TN)) /**< threads that compute: two warpgroups */
#define PRODUCER_THREADS 128 /**< one warpgroup: setmaxnreg changes whole warpgroups */
#define TMA_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
#define A_TILE_FLOATS (BK * BM) /**< As[BK][BM]: A^T, as chapters 01-06 store it (no padding) */
#define B_TILE_FLOATS (BK * BN) /**< Bs[BK][BN] */
#define STAGE_FLOATS (A_TILE_FLOATS + B_TILE_FLOATS) /**< one stage: 24 KB, a multiple of 128 bytes */
#define TMA_SMEM ((size_t)STAGES * STAGE_FLOATS * sizeof(float) + 128) /**< + room to align to 128 B */
static_assert(CONSUMER_THREADS == 256, "two consumer warpgroups");
CHECK_REG_SPLIT(TMA_THREADS, PRODUCER_THREADS, PRODUCER_REGS, CONSUMER_REGS);
static_assert(TMA_SMEM <= 227 * 1024, "the ring fits in the SM's shared memory");
static_assert(BK % CLUSTER_M == 0 && BK % CLUSTER_N == 0, "the clusters' slices split the tiles evenly");

/** @brief The register split in the knobs strings: producer / consumer registers per thread. */
#define REGS_KNOBS " REGS=" STR(PRODUCER_REGS) "/" STR(CONSUMER_REGS)
extern "C" const char gemm_tma_knobs[] = KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(STAGES) " CLUSTER=1x1" REGS_KNOBS;
extern "C" const char gemm_tma_multicast_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(STAGES) " CLUSTER=" STR(CLUSTER_M) "x" STR(CLUSTER_N) REGS_KNOBS;

namespace cg = cooperative_groups;

/**
 * @brief Tile row of row @p i (0..15) of the thread's 16 x 8 block: four
 *        groups of 4 consecutive rows, BM/4 apart (chapter 01's layout,
 *        with four groups instead of two).
 */
__device__ __forceinline__ int block_row16(int i, int ty) { return (i / 4) * (BM / 4) + ty * 4 + i % 4; }

/**
 * @brief BK rank-1 updates of the thread's 16 x 8 accumulators from one
 *        stage (As[k][m], Bs[k][n]): chapter 01's compute step with twice
 *        the rows. Per k: six 16-byte shared-memory reads (four of A, two
 *        of B) feed 128 FMAs, where an 8 x 8 block needs four for 64.
 *        The 128 accumulators and the fragments fit the registers per
 *        thread the block is launched with; setmaxnreg gives the
 *        consumers more.
 */
// [compute]
__device__ __forceinline__ void compute_stage(float acc[TM][TN], const float *As, const float *Bs, int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        float4 a[4];
#pragma unroll
        for (int g = 0; g < 4; ++g) a[g] = *reinterpret_cast<const float4 *>(As + k * BM + g * (BM / 4) + ty * 4);
        const float4 b_lo = *reinterpret_cast<const float4 *>(Bs + k * BN + tx * 4);
        const float4 b_hi = *reinterpret_cast<const float4 *>(Bs + k * BN + BN / 2 + tx * 4);
        const float b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const float ai = i % 4 == 0 ? a[i / 4].x : i % 4 == 1 ? a[i / 4].y : i % 4 == 2 ? a[i / 4].z : a[i / 4].w;
#pragma unroll
            for (int n = 0; n < TN; ++n) acc[i][n] = fmaf(ai, b[n], acc[i][n]);
        }
    }
}
// [compute]

/** @brief Write the thread's 16 x 8 block of the tile at (@p m0, @p n0); elements outside C are dropped. */
__device__ __forceinline__ void store_block(float *__restrict__ C, const float acc[TM][TN], int m0, int n0, int M,
                                            int N, int tx, int ty)
{
    const bool c_vec = rows_aligned16(C, N);
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            store4_guarded(C, m0 + block_row16(i, ty), n0 + h * (BN / 2) + tx * 4, M, N, c_vec,
                           make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2], acc[i][h * 4 + 3]));
}

/**
 * @brief TMA GEMM in clusters of CM x CN blocks (1 x 1: no multicast).
 *        Warpgroup 0 is the producer (one thread issues the copies),
 *        warpgroups 1-2 compute the block's BM x BN tile of C.
 * @tparam CM, CN  cluster size along M and N
 * @param M, N, K  problem size
 * @param C      output (M x N)
 * @param map_a  tensor map of A^T (K x M), boxes of BK/CN rows x BM
 * @param map_b  tensor map of B (K x N), boxes of BK/CM rows x BN
 */
// [kernel]
template <int CM, int CN>
__global__ void __launch_bounds__(TMA_THREADS, 1) gemm_tma(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
         const __grid_constant__ CUtensorMap map_b, float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ unsigned char smem_raw[];
    /* TMA writes to 128-byte-aligned shared memory: stages start on such a
     * boundary. Offset the array itself (not an integer made from it), so the
     * compiler still knows the pointer is shared memory and reads it with LDS. */
    float *smem = reinterpret_cast<float *>(smem_raw + ((128 - smem_addr(smem_raw) % 128) % 128));
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: all its bytes landed */
    __shared__ uint64_t empty[STAGES]; /* stage s is free in every block that writes into it */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = cx + cy * CN */
    const unsigned cx = rank % CN, cy = rank / CN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    // [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1); /* the own producer's arrive.expect_tx; then the bytes */
            mbar_init(&empty[s], (CM + CN - 1) * CONSUMER_THREADS); /* the row's and column's consumers */
        }
        fence_mbar_init(); /* visible to the copy engine and to the cluster */
    }
    TRACE_BEGIN(t_init);
    cluster.sync(); /* no peer multicasts into, or arrives on, barriers that do not exist yet */
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    // [init]

    if (threadIdx.x < PRODUCER_THREADS) {
        // [producer]
        warpgroup_set_registers<PRODUCER_REGS, LAUNCH_REGS(TMA_THREADS)>();
        if (threadIdx.x == 0) {
            /* This block's slices: rows [cx*BK/CN, ...) of the A^T tile go to its
             * row of the cluster; rows [cy*BK/CM, ...) of the B tile to its column. */
            // ---- exercise 07.1: The multicast masks: which blocks receive each slice ----
            // hint: bit r of a mask is the block of cluster rank r (= x + y * CN). A's slice goes
            // hint: to every block of this block's row (same cy), B's to every block of its column.
            uint16_t row_mask = 0, col_mask = 0;
            for (int j = 0; j < CN; ++j) row_mask |= (uint16_t)(1u << (cy * CN + j));
            for (int j = 0; j < CM; ++j) col_mask |= (uint16_t)(1u << (j * CN + cx));
            // stub: uint16_t row_mask = 0, col_mask = 0;
            // ---- end of exercise 07.1 ----
            const int a_row = cx * (BK / CN), b_row = cy * (BK / CM);
            for (int t = 0; t < tiles; ++t) {
                const int s = t % STAGES;
                float *As = smem + s * STAGE_FLOATS, *Bs = As + A_TILE_FLOATS;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&empty[s], ((t / STAGES) & 1) ^ 1);
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
                TRACE_BEGIN(t_issue);
                /* The whole stage arrives here: own slices and the peers'. */
                // ---- exercise 07.2: Issue one stage's TMA copies ----
                // hint: tell full[s] how many bytes will land (mbar_arrive_expect_tx), then copy
                // hint: this block's slices of the A^T and B tiles with tma_load_2d(), or
                // hint: tma_load_2d_multicast() with a mask when the cluster shares them.
                mbar_arrive_expect_tx(&full[s], STAGE_FLOATS * sizeof(float));
                if (CN > 1) /* element (column m, row k) of A^T */
                    tma_load_2d_multicast(As + a_row * BM, &map_a, m0, t * BK + a_row, &full[s], row_mask);
                else
                    tma_load_2d(As, &map_a, m0, t * BK, &full[s]);
                if (CM > 1)
                    tma_load_2d_multicast(Bs + b_row * BN, &map_b, n0, t * BK + b_row, &full[s], col_mask);
                else
                    tma_load_2d(Bs, &map_b, n0, t * BK, &full[s]);
                // stub: (void)row_mask; (void)col_mask; (void)a_row; (void)b_row; (void)Bs; /* no copies */
                // ---- end of exercise 07.2 ----
                TRACE_END(t_issue, TRACE_ISSUE, t);
            }
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<CONSUMER_REGS, LAUNCH_REGS(TMA_THREADS)>();
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            const float *As = smem + s * STAGE_FLOATS;
            TRACE_BEGIN(t_wait);
            mbar_wait_cta(&full[s], (t / STAGES) & 1);
            TRACE_END(t_wait, TRACE_WAIT_FULL, t);
            TRACE_BEGIN(t_math);
            compute_stage(acc, As, As + A_TILE_FLOATS, tx, ty);
            TRACE_END(t_math, TRACE_COMPUTE, t);
            /* Release stage s in every block whose producer writes into ours:
             * the blocks of this row (A) and of this column (B). A reader's
             * arrive: this thread wrote nothing the producers must see. */
            for (int j = 0; j < CN; ++j) mbar_arrive_cluster_reader(&empty[s], cy * CN + j);
            for (int j = 0; j < CM; ++j)
                if (j != (int)cy) mbar_arrive_cluster_reader(&empty[s], j * CN + cx);
        }
        TRACE_BEGIN(t_store);
        store_block(C, acc, m0, n0, M, N, tx, ty);
        TRACE_END(t_store, TRACE_STORE, -1);
        // [consumer]
    }
    // [exit]
    /* Peers may still arrive on this block's empty barriers: stay until all are done. */
    TRACE_BEGIN(t_exit);
    cluster.sync();
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    // [exit]
}
// [kernel]

/* ------------------------------------------------------------------- host */

// [launch]
template <int CM, int CN>
static cudaError_t launch_tma(int M, int N, int K, const float *A, const float *B, float *C, cudaStream_t stream)
{
    size_t lda = (size_t)K * sizeof(float), ldb = (size_t)N * sizeof(float);
    cudaError_t err;
    /* A^T (and B with padded rows where N needs it): the staging pass is
     * part of every call, and of every time the chapter reports. */
    if ((err = tma_stage(M, N, K, A, B, 1, &A, &B, &lda, &ldb, stream)) != cudaSuccess) return err;
    /* Tensor maps: A^T in boxes of BK/CN rows (k) x BM (m), B in boxes of
     * BK/CM rows x BN. Made on the host each call (a few microseconds,
     * while the GPU runs the previous work). */
    CUtensorMap map_a, map_b;
    char why[160];
    // ---- exercise 07.3: Describe A^T and B to TMA ----
    // hint: tma_map_2d(map, base, rows, cols, row pitch in bytes, box rows, box cols, ...):
    // hint: A^T is K x M (pitch lda), its box BK / CN rows of BM; B is K x N, boxes BK / CM x BN.
    if (tma_map_2d(&map_a, A, K, M, lda, BK / CN, BM, 0, why, sizeof why) ||
        tma_map_2d(&map_b, B, K, N, ldb, BK / CM, BN, 0, why, sizeof why)) {
        fprintf(stderr, "07_tma_multicast: cannot describe the matrix to TMA: %s\n", why);
        return cudaErrorInvalidValue;
    }
    // stub: map_a = CUtensorMap{}; /* all zeros: describes nothing */
    // stub: map_b = CUtensorMap{}; (void)why;
    // ---- end of exercise 07.3 ----
    if ((err = smem_opt_in((const void *)gemm_tma<CM, CN>, TMA_SMEM)) != cudaSuccess) return err;
    /* The grid must be a multiple of the cluster in each dimension; the
     * extra blocks' tiles lie outside C (TMA reads zeros, nothing is stored). */
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_launch_config(&cfg, &attr, dim3((tiles_n + CN - 1) / CN * CN, (tiles_m + CM - 1) / CM * CM),
                          dim3(TMA_THREADS), TMA_SMEM, stream, dim3(CN, CM, 1));
    err = cudaLaunchKernelEx(&cfg, gemm_tma<CM, CN>, M, N, K, map_a, map_b, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
// [launch]
SMEM_REPORT(tma, TMA_SMEM)
SMEM_REPORT(tma_multicast, TMA_SMEM)

extern "C" cudaError_t launch_gemm_tma(int M, int N, int K, const float *A, const float *B, float *C,
                                       cudaStream_t stream)
{
    return launch_tma<1, 1>(M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_tma_multicast(int M, int N, int K, const float *A, const float *B, float *C,
                                                 cudaStream_t stream)
{
    return launch_tma<CLUSTER_M, CLUSTER_N>(M, N, K, A, B, C, stream);
}
