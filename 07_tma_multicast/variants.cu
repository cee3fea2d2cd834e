/**
 * @file 07_tma_multicast/variants.cu
 * @brief Chapter 07's measured alternatives to its multicast kernel: the
 *        same TMA ring with chapter 06's block (128 x 128 tile, 8 x 8 per
 *        thread, one producer warp, 288 threads and no register hand-over):
 *  - tma128_swizzled: A read as it lies, row-major with the 128-byte
 *    swizzle (compute_tile_rows()), so no transpose pass runs. Against
 *    tma128_transposed it shows what reading A that way costs a block
 *    whose threads have 168 registers.
 *  - tma128_transposed: A^T written by a staging pass first, so that the
 *    consumers run chapter 01's compute step unchanged (the 168 registers a
 *    288-thread block allows suffice for it, not for the swizzled read).
 *  - tma128_fenced: as tma128_transposed, but the consumers release each
 *    stage with a cluster-scope release (a fence per arrival) instead of a
 *    reader's arrive. Nothing else in this ring fences, so the page sees
 *    its cost.
 * All run in clusters of CLUSTER_M x CLUSTER_N, as the multicast kernel.
 */
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "variants.h"
#include "kernel.h" /* tma_stage() */

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */

#include "knobs.h" /* CLUSTER_M CLUSTER_N, as kernel.cu */

/* Chapter 06's block: a 128 x 128 tile of C, one 8 x 8 block per consumer thread. */
#define BM 128 /**< rows of C per block (as chapters 01-06) */
#define BN 128 /**< columns of C per block */
#define BK 32  /**< K per tile (a row-major A tile row is 128 bytes, the 128-byte swizzle's span) */
#include "../01_naive/blocked.cuh" /* compute_tile(), store_tile() */
#define CONSUMER_THREADS BLOCKED_THREADS    /**< threads that compute: one 8x8 block each */
#define TMA_THREADS (32 + CONSUMER_THREADS) /**< one producer warp (one thread issues), then the consumers */
#define B_TILE_FLOATS (BK * BN)             /**< Bs[BK][BN] */
#if !defined(RING)
#error "RING: set by 07_tma_multicast/Makefile (make help lists them); build with make"
#endif
/* Registers: the 9 warps are spread over the SM's four schedulers, each
 * with 16384 registers, so one of them holds 3 warps: 168 registers per
 * thread at most (ptxas derives this from __launch_bounds__). */
#include "../06_clusters_dsmem/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "tma.cuh" /* TMA copies that complete on them */
#include "tensor_map.h" /* tma_map_2d(): tensor maps on the host */

/** @brief Floats of an A tile: As[BK][BM + A_PAD] transposed, As[BM][BK] swizzled. */
#define A_FLOATS(swizzled) ((swizzled) ? BM * BK : BK * (BM + A_PAD))
/** @brief Floats of a stage; a multiple of 1024 bytes (the swizzle's period) when swizzled. */
#define STAGE_FLOATS_OF(swizzled) (A_FLOATS(swizzled) + B_TILE_FLOATS)
/** @brief Dynamic shared memory: the ring, plus room to align it to 1024 bytes. */
#define SMEM_OF(swizzled) ((size_t)RING * STAGE_FLOATS_OF(swizzled) * sizeof(float) + 1024)
static_assert(BM % (8 * CLUSTER_N) == 0, "the swizzled A tile splits into whole 8-row blocks");
static_assert(RING * STAGE_FLOATS_OF(0) * 4 + 1024 <= 227 * 1024, "the ring fits in shared memory");
SMEM_REPORT(tma128_swizzled, SMEM_OF(true))
SMEM_REPORT(tma128_transposed, SMEM_OF(false))
SMEM_REPORT(tma128_fenced, SMEM_OF(false))

/** @brief The knobs every variant reports (its ring, RING, as STAGES= like the lesson's). */
#define TMA128_KNOBS \
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) " STAGES=" STR(RING) " CLUSTER=" STR(CLUSTER_M) "x" STR(CLUSTER_N)
extern "C" const char gemm_tma128_swizzled_knobs[] = TMA128_KNOBS;
extern "C" const char gemm_tma128_transposed_knobs[] = TMA128_KNOBS;
extern "C" const char gemm_tma128_fenced_knobs[] = TMA128_KNOBS;

namespace cg = cooperative_groups;

/**
 * @brief Chapter 01's compute step for an A tile stored row by row
 *        (As[m][k], 128-byte rows) with the 128-byte swizzle: 16-byte chunk
 *        j of row r sits at chunk j ^ (r % 8).
 *
 * Per group of four k: eight 16-byte reads of A (the thread's 8 rows) and
 * eight of B feed 256 FMAs, as in compute_tile(); each accumulator still
 * adds its K products in order k = 0, 1, 2, ...
 */
// [compute]
__device__ __forceinline__ void compute_tile_rows(float acc[TM][TN], const float *As, const float (*Bs)[BN],
                                                  int tx, int ty)
{
    /* Not unrolled: unrolled, the compiler hoists the A reads of later
     * groups and spills at the 168 registers a 288-thread block may have;
     * each iteration still has 256 independent FMAs. */
#pragma unroll 1
    for (int j = 0; j < BK / 4; ++j) {
        float4 a[TM];
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int r = block_row(i, ty);
            a[i] = *reinterpret_cast<const float4 *>(As + r * BK + ((j ^ (r % 8)) * 4));
        }
#pragma unroll
        for (int kk = 0; kk < 4; ++kk) {
            const float4 b_lo = *reinterpret_cast<const float4 *>(&Bs[j * 4 + kk][tx * 4]);
            const float4 b_hi = *reinterpret_cast<const float4 *>(&Bs[j * 4 + kk][BN / 2 + tx * 4]);
            const float b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < TM; ++i) {
                const float ai = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int n = 0; n < TN; ++n) acc[i][n] = fmaf(ai, b[n], acc[i][n]);
            }
        }
    }
}
// [compute]

/**
 * @brief A consumer's release of a stage to block @p rank: with @p Fenced a
 *        cluster-scope release, which costs a MEMBAR per arrival; else a
 *        reader's arrive, as kernel.cu.
 */
template <bool Fenced>
__device__ __forceinline__ void release_stage(uint64_t *bar, unsigned rank)
{
    if (Fenced)
        mbar_arrive_cluster(bar, rank);
    else
        mbar_arrive_cluster_reader(bar, rank);
}

/**
 * @brief The TMA ring with chapter 06's block, with A row-major and
 *        swizzled (@p Swizzled) or transposed by a staging pass, and the
 *        consumers' release with or without a fence (@p Fenced). Constant
 *        template arguments: each instance compiles to just its own path.
 * @tparam CM, CN    cluster size along M and N
 * @tparam Swizzled  A row-major with the 128-byte swizzle, else A^T
 * @tparam Fenced    the consumers release at cluster scope
 * @param M, N, K  problem size
 * @param C      output (M x N)
 * @param map_a  A^T (K x M) in boxes of BK/CN x BM + A_PAD; swizzled: A
 *               (M x K) in boxes of BM/CN x BK
 * @param map_b  B (K x N) in boxes of BK/CM rows x BN
 */
template <int CM, int CN, bool Swizzled, bool Fenced>
__global__ void __launch_bounds__(TMA_THREADS, 1)
gemm_tma_variant(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                 const __grid_constant__ CUtensorMap map_b, float *__restrict__ C)
{
    constexpr int a_floats = A_FLOATS(Swizzled), stage_floats = STAGE_FLOATS_OF(Swizzled);
    extern __shared__ unsigned char smem_raw[];
    /* The 128-byte swizzle repeats every 1024 bytes: stages start on such a
     * boundary (offset the array, as kernel.cu, to keep LDS). */
    float *smem = reinterpret_cast<float *>(smem_raw + ((1024 - smem_addr(smem_raw) % 1024) % 1024));
    __shared__ uint64_t full[RING];
    __shared__ uint64_t empty[RING];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const unsigned cx = rank % CN, cy = rank / CN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    if (threadIdx.x == 0) {
        for (int s = 0; s < RING; ++s) {
            mbar_init(&full[s], 1);
            mbar_init(&empty[s], (CM + CN - 1) * CONSUMER_THREADS);
        }
        fence_mbar_init();
    }
    cluster.sync();

    if (warp == 0) {
        if (lane == 0) {
            // ---- exercise 07.1: The multicast masks: which blocks receive each slice ----
            // hint: as in kernel.cu: the blocks of this block's row get A's slice, of its column B's.
            uint16_t row_mask = 0, col_mask = 0;
            for (int j = 0; j < CN; ++j) row_mask |= (uint16_t)(1u << (cy * CN + j));
            for (int j = 0; j < CM; ++j) col_mask |= (uint16_t)(1u << (j * CN + cx));
            // stub: uint16_t row_mask = 0, col_mask = 0;
            // ---- end of exercise 07.1 ----
            /* This block's slice of the A tile: rows of A^T (k), or rows of A (m). */
            const int a_row = Swizzled ? cx * (BM / CN) : cx * (BK / CN);
            const int a_off = Swizzled ? a_row * BK : a_row * (BM + A_PAD);
            const int b_row = cy * (BK / CM);
            for (int t = 0; t < tiles; ++t) {
                const int s = t % RING;
                float *As = smem + s * stage_floats, *Bs = As + a_floats;
                mbar_wait_cta(&empty[s], ((t / RING) & 1) ^ 1);
                // ---- exercise 07.2: Issue one stage's TMA copies ----
                // hint: as in kernel.cu, with A's slice at (ax, ay): rows of A when swizzled, of A^T when not.
                mbar_arrive_expect_tx(&full[s], stage_floats * sizeof(float));
                /* element (column, row) of A (swizzled) or of A^T */
                const int ax = Swizzled ? t * BK : m0, ay = Swizzled ? m0 + a_row : t * BK + a_row;
                if (CN > 1)
                    tma_load_2d_multicast(As + a_off, &map_a, ax, ay, &full[s], row_mask);
                else
                    tma_load_2d(As, &map_a, ax, ay, &full[s]);
                if (CM > 1)
                    tma_load_2d_multicast(Bs + b_row * BN, &map_b, n0, t * BK + b_row, &full[s], col_mask);
                else
                    tma_load_2d(Bs, &map_b, n0, t * BK, &full[s]);
                // stub: (void)row_mask; (void)col_mask; (void)a_off; (void)b_row; (void)Bs; /* no copies */
                // ---- end of exercise 07.2 ----
            }
        }
    } else {
        const int ctid = threadIdx.x - 32;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % RING;
            const float *As = smem + s * stage_floats;
            const float(*Bs)[BN] = reinterpret_cast<const float(*)[BN]>(As + a_floats);
            mbar_wait_cta(&full[s], (t / RING) & 1);
            if (Swizzled)
                compute_tile_rows(acc, As, Bs, tx, ty);
            else
                compute_tile(acc, reinterpret_cast<const float(*)[BM + A_PAD]>(As), Bs, tx, ty);
            for (int j = 0; j < CN; ++j) release_stage<Fenced>(&empty[s], cy * CN + j);
            for (int j = 0; j < CM; ++j)
                if (j != (int)cy) release_stage<Fenced>(&empty[s], j * CN + cx);
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
    }
    cluster.sync();
}

/** @brief kernel.cu's launch_tma() for a variant: staging, tensor maps, cluster launch. */
template <bool Swizzled, bool Fenced>
static cudaError_t launch_variant(int M, int N, int K, const float *A, const float *B, float *C,
                                  cudaStream_t stream)
{
    constexpr int CM = CLUSTER_M, CN = CLUSTER_N;
    size_t lda = (size_t)K * sizeof(float), ldb = (size_t)N * sizeof(float);
    cudaError_t err;
    /* Swizzled: A is staged only when its rows are not 16-byte multiples. */
    if ((err = tma_stage(M, N, K, A, B, !Swizzled, &A, &B, &lda, &ldb, stream)) != cudaSuccess) return err;
    CUtensorMap map_a, map_b;
    char why[160];
    // ---- exercise 07.3: Describe A^T and B to TMA ----
    // hint: as in kernel.cu; swizzled, the map describes A itself (M x K) in boxes of
    // hint: BM / CN rows of BK, with the 128-byte swizzle, and A^T has padded rows otherwise.
    const int bad_a = Swizzled ? tma_map_2d(&map_a, A, M, K, lda, BM / CN, BK, 128, why, sizeof why)
                               : tma_map_2d(&map_a, A, K, M, lda, BK / CN, BM + A_PAD, 0, why, sizeof why);
    if (bad_a || tma_map_2d(&map_b, B, K, N, ldb, BK / CM, BN, 0, why, sizeof why)) {
        fprintf(stderr, "07_tma_multicast: cannot describe the matrix to TMA: %s\n", why);
        return cudaErrorInvalidValue;
    }
    // stub: map_a = CUtensorMap{}; /* all zeros: describes nothing */
    // stub: map_b = CUtensorMap{}; (void)why;
    // ---- end of exercise 07.3 ----
    auto kernel = gemm_tma_variant<CM, CN, Swizzled, Fenced>;
    if ((err = smem_opt_in((const void *)kernel, SMEM_OF(Swizzled))) != cudaSuccess) return err;
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_launch_config(&cfg, &attr, dim3((tiles_n + CN - 1) / CN * CN, (tiles_m + CM - 1) / CM * CM),
                          dim3(TMA_THREADS), SMEM_OF(Swizzled), stream, dim3(CN, CM, 1));
    err = cudaLaunchKernelEx(&cfg, kernel, M, N, K, map_a, map_b, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}

extern "C" cudaError_t launch_gemm_tma128_swizzled(int M, int N, int K, const float *A, const float *B, float *C,
                                                    cudaStream_t stream)
{
    return launch_variant<true, false>(M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_tma128_transposed(int M, int N, int K, const float *A, const float *B, float *C,
                                                      cudaStream_t stream)
{
    return launch_variant<false, false>(M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_tma128_fenced(int M, int N, int K, const float *A, const float *B, float *C,
                                                  cudaStream_t stream)
{
    return launch_variant<false, true>(M, N, K, A, B, C, stream);
}
