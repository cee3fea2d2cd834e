/**
 * @file 07_tma_multicast/kernel.cu
 * @brief Chapter 07: the Tensor Memory Accelerator. The warp-specialized
 *        ring of chapters 03 and 06, with the producer warps replaced by
 *        one thread that issues one TMA copy per tile, and then TMA
 *        multicast: one copy lands in every block of the cluster that
 *        needs the tile.
 *
 * Chapter 06's producers spent 256 threads on loads, address arithmetic
 * and (through DSMEM) stores. A TMA copy is one instruction: the tensor
 * map (made on the host, 07_tma_multicast/tensor_map.c) tells the copy engine the matrix's
 * shape and strides, the instruction names a tile by its coordinates,
 * and the engine moves the bytes and fills what lies outside the matrix
 * with zeros. The stage's full barrier learns how many bytes to expect
 * (`mbarrier.arrive.expect_tx`) and completes when they have landed.
 *
 * With CLUSTER_M x CLUSTER_N > 1, the blocks of a cluster sit on a
 * CLUSTER_M x CLUSTER_N patch of C tiles. Blocks in one row of the patch
 * need the same A tile: each issues 1/CLUSTER_N of it with
 * `.multicast::cluster` to all of them. Blocks in one column need the same
 * B tile, shared the same way along the other dimension. Since a block's
 * stage is now written by its row's and column's producers, those blocks'
 * consumers must all have released it before any of them refills it: the
 * empty barrier counts arrivals from the whole row and column.
 *
 * TMA cannot transpose, so the A tile arrives as it lies in memory
 * (As[m][k]) rather than transposed as in chapters 01-06, with the
 * 128-byte swizzle so that the consumers' reads of it do not collide in
 * shared-memory banks; compute_tile_rows() is chapter 01's compute step
 * for that layout (same products, same order of additions).
 *
 * Knobs: STAGES; CLUSTER_M, CLUSTER_N (the multicast kernel's cluster;
 * 1 x 1 is the plain TMA kernel, which is always built as well).
 */
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "kernel.h"

namespace cg = cooperative_groups;

#include "../common/launch.cuh" /* STR(), smem_opt_in() */

#define BM 128 /**< rows of C per block (as chapters 01-06) */
#define BN 128 /**< columns of C per block (as chapters 01-06) */
#define BK 32  /**< K per tile (a row-major A tile row is 128 bytes, the 128-byte swizzle's span) */
#ifndef STAGES
#define STAGES 4 /**< tiles the ring holds (2: double buffering) */
#endif
#ifndef CLUSTER_M
#define CLUSTER_M 2 /**< multicast kernel: blocks per cluster along M (they share B tiles) */
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 1 /**< multicast kernel: blocks per cluster along N (they share A tiles) */
#endif
#ifndef TRANSPOSE_A
#define TRANSPOSE_A 1 /**< 1: TMA reads a transposed copy of A (As[k][m], chapter 01's layout); 0: A as it is, swizzled */
#endif
#ifndef CLUSTER_RELEASE
#define CLUSTER_RELEASE 0 /**< 1: consumers release stages with a cluster-scope fence (shows its cost) */
#endif

#include "../common/cluster.cuh"      /* mbarriers */
#include "tma.cuh"                     /* TMA copies that complete on them */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "tensor_map.h"           /* tma_map_2d(): tensor maps on the host */

#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define TMA_THREADS (32 + CONSUMER_THREADS)    /**< one producer warp (one thread issues), then the consumers */
#if TRANSPOSE_A
#define A_TILE_FLOATS (BK * (BM + A_PAD)) /**< As[BK][BM + A_PAD], as chapters 01-06 */
#else
#define A_TILE_FLOATS (BM * BK) /**< As[BM][BK], swizzled */
#endif
#define B_TILE_FLOATS (BK * BN)                /**< Bs[BK][BN] */
#define TMA_STAGE_FLOATS (A_TILE_FLOATS + B_TILE_FLOATS) /**< one stage; a multiple of 128 B (of 1024 B when swizzled) */
#define TMA_SMEM ((size_t)STAGES * TMA_STAGE_FLOATS * sizeof(float) + 1024) /**< + room to align to 1024 B */
/* Registers: the 9 warps are spread over the SM's four schedulers, each
 * with 16384 registers, so one of them holds 3 warps: 168 registers per
 * thread at most (ptxas derives this from __launch_bounds__). */
static_assert(STAGES >= 2 && STAGES <= 6, "STAGES must be 2..6 (227 KB of shared memory)");
static_assert(CLUSTER_M * CLUSTER_N <= 8 && BM % (8 * CLUSTER_N) == 0 && BK % CLUSTER_M == 0 &&
                  BK % CLUSTER_N == 0,
              "a cluster of at most 8 that splits the tiles evenly (swizzled A: in whole 8-row blocks)");

extern "C" const char gemm_tma_knobs[] =
    "BM=128 BN=128 BK=32 TM=8 TN=8 STAGES=" STR(STAGES) " CLUSTER=1x1 TRANSPOSE_A=" STR(TRANSPOSE_A)
    " CLUSTER_RELEASE=" STR(CLUSTER_RELEASE);
extern "C" const char gemm_tma_multicast_knobs[] = "BM=128 BN=128 BK=32 TM=8 TN=8 STAGES=" STR(STAGES) " CLUSTER=" STR(
    CLUSTER_M) "x" STR(CLUSTER_N) " TRANSPOSE_A=" STR(TRANSPOSE_A) " CLUSTER_RELEASE=" STR(CLUSTER_RELEASE);

/**
 * @brief A consumer's release of a stage to block @p rank: a reader's
 *        arrive (CTA-scope release, no fence), or with CLUSTER_RELEASE=1 a
 *        cluster-scope release, which costs a MEMBAR per arrival.
 */
__device__ __forceinline__ void release_stage(uint64_t *bar, unsigned rank)
{
#if CLUSTER_RELEASE
    mbar_arrive_cluster(bar, rank);
#else
    mbar_arrive_cluster_reader(bar, rank);
#endif
}
#if TRANSPOSE_A
extern "C" const char tma_staging_a_what[] = "A_transposed";
#else
extern "C" const char tma_staging_a_what[] = "A_padded";
#endif

/**
 * @brief Chapter 01's compute step for an A tile stored row by row
 *        (As[m][k], 128-byte rows) with the 128-byte swizzle: 16-byte chunk
 *        j of row r sits at chunk j ^ (r % 8).
 *
 * Per group of four k: eight 16-byte reads of A (the thread's 8 rows) and
 * eight of B feed 256 FMAs, as in compute_tile(); each accumulator still
 * adds its K products in order k = 0, 1, 2, ...
 */
//! [compute]
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
//! [compute]

/**
 * @brief TMA GEMM in clusters of CM x CN blocks (1 x 1: no multicast).
 *        Warp 0 is the producer (lane 0 issues the copies), warps 1-8
 *        compute the block's BM x BN tile of C.
 * @tparam CM, CN  cluster size along M and N
 * @param M, N, K  problem size
 * @param C      output (M x N)
 * @param map_a  tensor map of A (M x K), boxes of BM/CN rows x BK
 * @param map_b  tensor map of B (K x N), boxes of BK/CM rows x BN
 */
//! [kernel]
template <int CM, int CN>
__global__ void __launch_bounds__(TMA_THREADS, 1) gemm_tma(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
         const __grid_constant__ CUtensorMap map_b, float *__restrict__ C)
{
    extern __shared__ unsigned char smem_raw[];
    /* The 128-byte swizzle repeats every 1024 bytes: stages start on such a boundary. */
    float *smem = reinterpret_cast<float *>(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: all its bytes landed */
    __shared__ uint64_t empty[STAGES]; /* stage s is free in every block that writes into it */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = cx + cy * CN */
    const unsigned cx = rank % CN, cy = rank / CN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    //! [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1); /* the own producer's arrive.expect_tx; then the bytes */
            mbar_init(&empty[s], (CM + CN - 1) * CONSUMER_THREADS); /* the row's and column's consumers */
        }
        fence_mbar_init(); /* visible to the copy engine and to the cluster */
    }
    cluster.sync(); /* no peer multicasts into, or arrives on, barriers that do not exist yet */
    //! [init]

    if (warp == 0) {
        //! [producer]
        if (lane == 0) {
            /* This block's slices: rows [cx*BM/CN, ...) of the A tile go to its
             * row of the cluster; rows [cy*BK/CM, ...) of the B tile to its column. */
            uint16_t row_mask = 0, col_mask = 0;
            for (int j = 0; j < CN; ++j) row_mask |= (uint16_t)(1u << (cy * CN + j));
            for (int j = 0; j < CM; ++j) col_mask |= (uint16_t)(1u << (j * CN + cx));
#if TRANSPOSE_A
            /* A^T's tile is BK rows (k) of BM + A_PAD floats (m; the last A_PAD
             * belong to the next tile or lie outside, and land in the padding). */
            const int a_row = cx * (BK / CN), a_off = a_row * (BM + A_PAD);
#else
            const int a_row = cx * (BM / CN), a_off = a_row * BK;
#endif
            const int b_row = cy * (BK / CM);
            for (int t = 0; t < tiles; ++t) {
                const int s = t % STAGES;
                float *As = smem + s * TMA_STAGE_FLOATS, *Bs = As + A_TILE_FLOATS;
                mbar_wait_cta(&empty[s], ((t / STAGES) & 1) ^ 1);
                /* The whole stage arrives here: own slices and the peers'. */
                mbar_arrive_expect_tx(&full[s], TMA_STAGE_FLOATS * sizeof(float));
#if TRANSPOSE_A
                const int ax = m0, ay = t * BK + a_row; /* element (column, row) of A^T */
#else
                const int ax = t * BK, ay = m0 + a_row; /* element (column, row) of A */
#endif
                if (CN > 1)
                    tma_load_2d_multicast(As + a_off, &map_a, ax, ay, &full[s], row_mask);
                else
                    tma_load_2d(As, &map_a, ax, ay, &full[s]);
                if (CM > 1)
                    tma_load_2d_multicast(Bs + b_row * BN, &map_b, n0, t * BK + b_row, &full[s], col_mask);
                else
                    tma_load_2d(Bs, &map_b, n0, t * BK, &full[s]);
            }
        }
        //! [producer]
    } else {
        //! [consumer]
        const int ctid = threadIdx.x - 32;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            const float *As = smem + s * TMA_STAGE_FLOATS;
            mbar_wait_cta(&full[s], (t / STAGES) & 1);
#if TRANSPOSE_A
            compute_tile(acc, reinterpret_cast<const float(*)[BM + A_PAD]>(As),
                         reinterpret_cast<const float(*)[BN]>(As + A_TILE_FLOATS), tx, ty);
#else
            compute_tile_rows(acc, As, reinterpret_cast<const float(*)[BN]>(As + A_TILE_FLOATS), tx, ty);
#endif
            /* Release stage s in every block whose producer writes into ours:
             * the blocks of this row (A) and of this column (B). */
            for (int j = 0; j < CN; ++j) release_stage(&empty[s], cy * CN + j);
            for (int j = 0; j < CM; ++j)
                if (j != (int)cy) release_stage(&empty[s], j * CN + cx);
        }
        store_tile(C, acc, m0, n0, M, N, tx, ty);
        //! [consumer]
    }
    //! [exit]
    /* Peers may still arrive on this block's empty barriers: stay until all are done. */
    cluster.sync();
    //! [exit]
}
//! [kernel]

/* ------------------------------------------------------------------- host */

/** @brief A^T (or A padded) and B padded, for what a tensor map cannot read as it is. */
typedef struct {
    float *a;       /**< A with rows padded to 16 bytes */
    float *b;       /**< B likewise */
    size_t a_bytes; /**< bytes allocated at a */
    size_t b_bytes; /**< bytes allocated at b */
} staging;
static staging stage_buf;

/** @brief Make sure @p *p holds at least @p bytes. */
static cudaError_t reserve(float **p, size_t *have, size_t bytes)
{
    if (*have >= bytes) return cudaSuccess;
    if (*p != NULL) cudaFree(*p);
    *have = 0;
    const cudaError_t err = cudaMalloc((void **)p, bytes);
    if (err == cudaSuccess) *have = bytes;
    return err;
}

/**
 * @brief A^T, with rows padded to @p mp floats: At[k][m] = A[m][k]. Through
 *        a 32 x 32 tile in shared memory, so both the reads of A and the
 *        writes of At are coalesced (the +1 column avoids bank conflicts).
 */
__global__ void transpose_pad(const float *__restrict__ A, int M, int K, float *__restrict__ At, int mp)
{
    __shared__ float t[32][33];
    const int k = blockIdx.x * 32 + threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += 8) {
        const int m = blockIdx.y * 32 + j;
        if (m < M && k < K) t[j][threadIdx.x] = A[(size_t)m * K + k];
    }
    __syncthreads();
    const int m = blockIdx.y * 32 + threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += 8) {
        const int kk = blockIdx.x * 32 + j;
        if (kk < K && m < M) At[(size_t)kk * mp + m] = t[threadIdx.x][j];
    }
}

//! [staging]
extern "C" int tma_needs_staging(int N, int K, const float *A, const float *B)
{
    const int a = TRANSPOSE_A || K % 4 != 0 || (uintptr_t)A % 16 != 0;
    const int b = N % 4 != 0 || (uintptr_t)B % 16 != 0;
    return a | b << 1;
}

extern "C" cudaError_t tma_stage(int M, int N, int K, const float *A, const float *B, const float **Ap,
                                 const float **Bp, size_t *lda, size_t *ldb, cudaStream_t stream)
{
    /* Rows padded to a multiple of 4 floats (16 bytes); the tensor maps
     * still give the real sizes, so the padding is never read. */
    const int need = tma_needs_staging(N, K, A, B);
    const size_t np = (N + 3) / 4 * 4;
    cudaError_t err;
    if (need & 1) {
#if TRANSPOSE_A
        /* TMA copies boxes as they lie in memory and cannot transpose: give it A^T. */
        const size_t mp = (M + 3) / 4 * 4;
        if ((err = reserve(&stage_buf.a, &stage_buf.a_bytes, (size_t)K * mp * sizeof(float))) != cudaSuccess)
            return err;
        transpose_pad<<<dim3((K + 31) / 32, (M + 31) / 32), dim3(32, 8), 0, stream>>>(A, M, K, stage_buf.a,
                                                                                      (int)mp);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
        *lda = mp * sizeof(float);
#else
        const size_t kp = (K + 3) / 4 * 4;
        if ((err = reserve(&stage_buf.a, &stage_buf.a_bytes, (size_t)M * kp * sizeof(float))) != cudaSuccess ||
            (err = cudaMemcpy2DAsync(stage_buf.a, kp * sizeof(float), A, (size_t)K * sizeof(float),
                                     (size_t)K * sizeof(float), M, cudaMemcpyDeviceToDevice, stream)) != cudaSuccess)
            return err;
        *lda = kp * sizeof(float);
#endif
        *Ap = stage_buf.a;
    }
    if (need & 2) {
        if ((err = reserve(&stage_buf.b, &stage_buf.b_bytes, (size_t)K * np * sizeof(float))) != cudaSuccess ||
            (err = cudaMemcpy2DAsync(stage_buf.b, np * sizeof(float), B, (size_t)N * sizeof(float),
                                     (size_t)N * sizeof(float), K, cudaMemcpyDeviceToDevice, stream)) != cudaSuccess)
            return err;
        *Bp = stage_buf.b;
        *ldb = np * sizeof(float);
    }
    return cudaSuccess;
}
//! [staging]

/** @brief The tensor maps of one kernel, remade only when the problem changes. */
typedef struct {
    const float *a;    /**< the A the maps describe (NULL: none yet) */
    const float *b;    /**< the B they describe */
    int M;             /**< rows of A */
    int N;             /**< columns of B */
    int K;             /**< columns of A, rows of B */
    CUtensorMap map_a; /**< A's tensor map */
    CUtensorMap map_b; /**< B's tensor map */
} map_cache;

//! [launch]
template <int CM, int CN>
static cudaError_t launch_tma(int M, int N, int K, const float *A, const float *B, float *C, cudaStream_t stream,
                              map_cache *mc)
{
    size_t lda = (size_t)K * sizeof(float), ldb = (size_t)N * sizeof(float);
    cudaError_t err;
    /* A^T (or padded copies): the staging pass is part of every call. */
    if (tma_needs_staging(N, K, A, B) &&
        (err = tma_stage(M, N, K, A, B, &A, &B, &lda, &ldb, stream)) != cudaSuccess)
        return err;
    if (mc->a != A || mc->b != B || mc->M != M || mc->N != N || mc->K != K) {
        char why[160];
#if TRANSPOSE_A
        const int bad_a = tma_map_2d(&mc->map_a, A, K, M, lda, BK / CN, BM + A_PAD, 0, why, sizeof why);
#else
        const int bad_a = tma_map_2d(&mc->map_a, A, M, K, lda, BM / CN, BK, 1, why, sizeof why);
#endif
        if (bad_a ||
            tma_map_2d(&mc->map_b, B, K, N, ldb, BK / CM, BN, 0, why, sizeof why)) {
            fprintf(stderr, "07_tma_multicast: cannot describe the matrix to TMA: %s\n", why);
            mc->a = NULL;
            return cudaErrorInvalidValue;
        }
        mc->a = A, mc->b = B, mc->M = M, mc->N = N, mc->K = K;
    }
    if ((err = smem_opt_in((const void *)gemm_tma<CM, CN>, TMA_SMEM)) != cudaSuccess) return err;
    /* The grid must be a multiple of the cluster in each dimension; the
     * extra blocks' tiles lie outside C (TMA reads zeros, nothing is stored). */
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_launch_config(&cfg, &attr, dim3((tiles_n + CN - 1) / CN * CN, (tiles_m + CM - 1) / CM * CM),
                          dim3(TMA_THREADS), TMA_SMEM, stream, dim3(CN, CM, 1));
    err = cudaLaunchKernelEx(&cfg, gemm_tma<CM, CN>, M, N, K, mc->map_a, mc->map_b, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
//! [launch]

static map_cache plain_maps, multicast_maps;

extern "C" cudaError_t launch_gemm_tma(int M, int N, int K, const float *A, const float *B, float *C,
                                       cudaStream_t stream)
{
    return launch_tma<1, 1>(M, N, K, A, B, C, stream, &plain_maps);
}

extern "C" cudaError_t launch_gemm_tma_multicast(int M, int N, int K, const float *A, const float *B, float *C,
                                                 cudaStream_t stream)
{
    return launch_tma<CLUSTER_M, CLUSTER_N>(M, N, K, A, B, C, stream, &multicast_maps);
}
