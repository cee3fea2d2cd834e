/**
 * @file 01_naive/kernel.cu
 * @brief Chapter 01: three synchronous GEMMs, C = A * B in row-major FP32.
 *
 * Each kernel adds one idea to the one before it:
 *  - gemm_naive:   one thread per element of C, operands read from global
 *                  memory every time they are used;
 *  - gemm_tiled:   a block stages TILE x TILE tiles of A and B in shared
 *                  memory, so each global element is read once per block
 *                  instead of once per thread (the book's "naive tiling");
 *  - gemm_blocked: each thread computes an 8 x 8 block of C from registers
 *                  (register blocking) and moves data in 16-byte pieces.
 *
 * All three are synchronous: a block loads a tile, waits at
 * __syncthreads(), computes, waits again. Nothing overlaps the loads with the
 * math inside a block; only other resident blocks hide the memory latency.
 * Chapter 02 removes that wait with asynchronous copies.
 *
 * Knobs (make chapter-01 BM=128 BN=128 BK=8 MIN_BLOCKS=2 TILE=32): the
 * chapter page shows the measurements the defaults were chosen from.
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel.h"

#define STR_(x) #x      /**< @brief helper of STR() */
#define STR(x) STR_(x) /**< @brief a macro's value as a string, for the knob strings */

/* ------------------------------------------------------------------------ */
/* 1. naive                                                                  */
/* ------------------------------------------------------------------------ */

#define NAIVE_BX 32 /**< naive block width: threadIdx.x walks along a row of C, so B and C accesses coalesce */
#define NAIVE_BY 8  /**< naive block height */

extern "C" const char gemm_naive_knobs[] = "block=" STR(NAIVE_BX) "x" STR(NAIVE_BY);

/**
 * @brief One thread computes one element of C with a dot product over K.
 *
 * Every A and B element is fetched from global memory (or the caches) once
 * per thread that needs it: N times for A, M times for B.
 */
//! [naive]
__global__ void gemm_naive(int M, int N, int K, const float *__restrict__ A,
                           const float *__restrict__ B, float *__restrict__ C)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
//! [naive]

extern "C" cudaError_t launch_gemm_naive(int M, int N, int K, const float *A, const float *B,
                                         float *C, cudaStream_t stream)
{
    const dim3 block(NAIVE_BX, NAIVE_BY);
    const dim3 grid((N + NAIVE_BX - 1) / NAIVE_BX, (M + NAIVE_BY - 1) / NAIVE_BY);
    gemm_naive<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------ */
/* 2. tiled                                                                  */
/* ------------------------------------------------------------------------ */

#ifndef TILE
#define TILE 32 /**< tiled kernel: tile edge; the block is TILE x TILE threads */
#endif
static_assert(TILE * TILE <= 1024, "TILE x TILE threads must fit in one block");

extern "C" const char gemm_tiled_knobs[] = "TILE=" STR(TILE);

/**
 * @brief A TILE x TILE block stages tiles of A and B in shared memory.
 *
 * Each thread loads one element of each tile and computes one element of C.
 * Out-of-range elements are loaded as zero, so any M, N, K works and the
 * inner loop needs no bounds checks.
 */
//! [tiled]
__global__ void gemm_tiled(int M, int N, int K, const float *__restrict__ A,
                           const float *__restrict__ B, float *__restrict__ C)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads(); /* the whole tile is in shared memory */

        for (int k = 0; k < TILE; ++k)
            acc += As[ty][k] * Bs[k][tx]; /* As: broadcast; Bs: one bank per thread */
        __syncthreads(); /* nobody still reads the tile we overwrite next */
    }
    if (row < M && col < N) C[row * N + col] = acc;
}
//! [tiled]

extern "C" cudaError_t launch_gemm_tiled(int M, int N, int K, const float *A, const float *B,
                                         float *C, cudaStream_t stream)
{
    const dim3 block(TILE, TILE);
    const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_tiled<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------ */
/* 3. blocked: shared-memory tiles + register blocking + 16-byte loads       */
/* ------------------------------------------------------------------------ */

#ifndef BM
#define BM 128 /**< blocked kernel: rows of C per block */
#endif
#ifndef BN
#define BN 128 /**< blocked kernel: columns of C per block */
#endif
#ifndef BK
#define BK 8 /**< blocked kernel: depth of one A/B tile along K */
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2 /**< blocked kernel: blocks per SM the register budget must allow */
#endif
#define TM 8 /**< rows of C per thread: two groups of 4, BM/2 apart */
#define TN 8 /**< columns of C per thread: two groups of 4, BN/2 apart */
#define BLOCKED_THREADS ((BM / TM) * (BN / TN)) /**< threads per block of the blocked kernel */
#define A_PAD 4 /**< floats of padding per A-tile row (keeps rows 16-byte aligned) */
#define A_LOADS (BM * BK / 4 / BLOCKED_THREADS) /**< float4 loads per thread per A tile */
#define B_LOADS (BK * BN / 4 / BLOCKED_THREADS) /**< float4 loads per thread per B tile */

static_assert(BM % 16 == 0 && BN % 16 == 0, "BM and BN must be multiples of 16");
static_assert(BK % 4 == 0, "BK must be a multiple of 4 (16-byte tile rows)");
static_assert((BM * BK / 4) % BLOCKED_THREADS == 0 && A_LOADS > 0,
              "the A tile must split evenly into one or more float4 per thread");
static_assert((BK * BN / 4) % BLOCKED_THREADS == 0 && B_LOADS > 0,
              "the B tile must split evenly into one or more float4 per thread");
static_assert(BLOCKED_THREADS <= 1024, "too many threads per block");

extern "C" const char gemm_blocked_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN)
    " MIN_BLOCKS=" STR(MIN_BLOCKS);

//! [load4]
/**
 * @brief Elements [col, col+4) of row @p row of a rows x cols matrix, zero
 *        outside the matrix.
 *
 * One 16-byte load when all four are inside and rows are 16-byte aligned
 * (@p vec); element by element at the edges and for odd leading dimensions,
 * where a 16-byte load would be misaligned or run past the row.
 */
__device__ __forceinline__ float4 load4_or_zero(const float *__restrict__ p, int row, int col,
                                                int rows, int cols, bool vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= rows) return v;
    const float *q = p + row * cols + col;
    if (vec && col + 3 < cols) return *reinterpret_cast<const float4 *>(q);
    if (col + 0 < cols) v.x = q[0];
    if (col + 1 < cols) v.y = q[1];
    if (col + 2 < cols) v.z = q[2];
    if (col + 3 < cols) v.w = q[3];
    return v;
}
//! [load4]

/** @brief Write four consecutive elements of C, dropping those outside it. */
__device__ __forceinline__ void store4_guarded(float *__restrict__ p, int row, int col, int rows,
                                               int cols, bool vec, float4 v)
{
    if (row >= rows) return;
    float *q = p + row * cols + col;
    if (vec && col + 3 < cols) {
        *reinterpret_cast<float4 *>(q) = v;
        return;
    }
    if (col + 0 < cols) q[0] = v.x;
    if (col + 1 < cols) q[1] = v.y;
    if (col + 2 < cols) q[2] = v.z;
    if (col + 3 < cols) q[3] = v.w;
}

/**
 * @brief Register-blocked GEMM: each of the block's threads computes an
 *        8 x 8 piece of the block's BM x BN tile of C.
 *
 * Per step of BK, every thread copies its share of the A and B tiles into
 * shared memory with 16-byte loads, the block waits, and each thread runs BK
 * rank-1 updates of its 64 accumulators: 8 + 8 values read from shared
 * memory (four 16-byte reads) feed 64 FMAs, where the tiled kernel needed two
 * shared-memory reads per FMA.
 *
 * The thread's 8 rows are two groups of 4, BM/2 apart (likewise its 8
 * columns, BN/2 apart). Neighbouring threads then read neighbouring 16-byte
 * pieces, so a warp's shared-memory reads are free of bank conflicts;
 * 8 contiguous columns per thread would put threads t and t+4 on the same
 * banks.
 */
//! [blocked]
__global__ void __launch_bounds__(BLOCKED_THREADS, MIN_BLOCKS)
gemm_blocked(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C)
{
    /* The A tile is stored transposed (k-major), so the 8 A values a thread
     * needs at one k are two float4; the padding spreads the transposing
     * stores over more banks. The B tile keeps B's layout. */
    __shared__ __align__(16) float As[BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool a_vec = K % 4 == 0 && (uintptr_t)A % 16 == 0;
    const bool b_vec = N % 4 == 0 && (uintptr_t)B % 16 == 0;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    for (int k0 = 0; k0 < K; k0 += BK) {
        //! [blocked-load]
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int e = tid + l * BLOCKED_THREADS;
            const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
            const float4 v = load4_or_zero(A, m0 + r, k0 + c, M, K, a_vec);
            As[c + 0][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int e = tid + l * BLOCKED_THREADS;
            const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
            *reinterpret_cast<float4 *>(&Bs[r][c]) = load4_or_zero(B, k0 + r, n0 + c, K, N, b_vec);
        }
        __syncthreads(); /* both tiles complete: all loads finish before any math */
        //! [blocked-load]

        //! [blocked-compute]
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a_lo = *reinterpret_cast<const float4 *>(&As[k][ty * 4]);
            const float4 a_hi = *reinterpret_cast<const float4 *>(&As[k][BM / 2 + ty * 4]);
            const float4 b_lo = *reinterpret_cast<const float4 *>(&Bs[k][tx * 4]);
            const float4 b_hi = *reinterpret_cast<const float4 *>(&Bs[k][BN / 2 + tx * 4]);
            const float a[TM] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b[TN] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads(); /* everyone is done with the tiles before they are overwritten */
        //! [blocked-compute]
    }

    //! [blocked-store]
    /* Thread row i is tile row ty*4 + i for i < 4, and BM/2 + ty*4 + (i-4) after. */
    const bool c_vec = N % 4 == 0 && (uintptr_t)C % 16 == 0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + (i - 4));
#pragma unroll
        for (int h = 0; h < 2; ++h)
            store4_guarded(C, row, n0 + h * (BN / 2) + tx * 4, M, N, c_vec,
                           make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                                       acc[i][h * 4 + 3]));
    }
    //! [blocked-store]
}
//! [blocked]

extern "C" cudaError_t launch_gemm_blocked(int M, int N, int K, const float *A, const float *B,
                                           float *C, cudaStream_t stream)
{
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_blocked<<<grid, BLOCKED_THREADS, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
