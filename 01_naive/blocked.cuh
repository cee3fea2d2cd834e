/**
 * @file 01_naive/blocked.cuh
 * @brief The pieces of the register-blocked GEMM that the GEMM chapters
 *        share unchanged: the 8 x 8 per-thread compute step and the store
 *        of C (with the guarded loads and stores of guarded.cuh).
 *
 * Chapter 01 introduces them; later chapters change only how tiles reach
 * shared memory (and who loads them), so keeping these here makes each
 * chapter's kernel.cu show its own technique and nothing else.
 *
 * C-style "template": include this after defining the tile macros
 * BM, BN, BK (and A_PAD below is fixed). Tiles in shared memory are
 * As[BK][BM + A_PAD] (A transposed, k-major) and Bs[BK][BN].
 */
#ifndef CH01_BLOCKED_CUH
#define CH01_BLOCKED_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "guarded.cuh" /* load4_or_zero(), store4_guarded(), rows_aligned16() */

#if !defined(BM) || !defined(BN) || !defined(BK)
#error "define BM, BN and BK before including blocked.cuh"
#endif

#define TM 8 /**< rows of C per thread: two groups of 4, BM/2 apart */
#define TN 8 /**< columns of C per thread: two groups of 4, BN/2 apart */
#define A_PAD 4 /**< floats of padding per A-tile row (keeps rows 16-byte aligned) */
#define BLOCKED_THREADS ((BM / TM) * (BN / TN)) /**< threads that compute one BM x BN tile */

static_assert(BM % 16 == 0 && BN % 16 == 0, "BM and BN must be multiples of 16");
static_assert(BK % 4 == 0, "BK must be a multiple of 4 (16-byte tile rows)");

/**
 * @brief BK rank-1 updates of the thread's 8 x 8 accumulators from one pair
 *        of tiles in shared memory.
 *
 * The thread's 8 rows are two groups of 4, BM/2 apart (likewise its 8
 * columns, BN/2 apart). Neighbouring threads then read neighbouring 16-byte
 * pieces, so a warp's shared-memory reads are free of bank conflicts;
 * 8 contiguous columns per thread would put threads t and t+4 on the same
 * banks. Per k: four 16-byte shared-memory reads feed 64 FMAs.
 *
 * @param acc  the thread's accumulators
 * @param As   A tile, transposed: As[k][m]
 * @param Bs   B tile: Bs[k][n]
 * @param tx   thread's column group, 0 .. BN/TN-1
 * @param ty   thread's row group, 0 .. BM/TM-1
 */
// [compute]
__device__ __forceinline__ void compute_tile(float acc[TM][TN], const float (*As)[BM + A_PAD],
                                             const float (*Bs)[BN], int tx, int ty)
{
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        // ---- exercise 01.3: One rank-1 update of the thread's 8 x 8 block, from registers ----
        // hint: read the thread's 8 values of A (As[k][ty*4..] and As[k][BM/2 + ty*4..]) and
        // hint: 8 of B (Bs[k][tx*4..], Bs[k][BN/2 + tx*4..]) as four float4, then 64 fmaf()
        // hint: into acc[i][j]: 16 shared-memory values feed 64 FMAs.
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
        // ---- end of exercise 01.3 ----
    }
}
// [compute]

/**
 * @brief Tile row of row @p i (0..7) of the 8 x 8 block of thread row @p ty:
 *        ty*4 + i for i < 4 and BM/2 + ty*4 + (i-4) after (columns likewise,
 *        as compute_tile() lays them out).
 */
__device__ __forceinline__ int block_row(int i, int ty) { return i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + (i - 4); }

/**
 * @brief Write the thread's 8 x 8 block of the tile at (@p m0, @p n0) to C
 *        (rows as block_row() gives them). Elements outside M x N are dropped.
 */
// [store]
__device__ __forceinline__ void store_tile(float *__restrict__ C, const float acc[TM][TN], int m0,
                                           int n0, int M, int N, int tx, int ty)
{
    const bool c_vec = rows_aligned16(C, N);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + block_row(i, ty);
#pragma unroll
        for (int h = 0; h < 2; ++h)
            store4_guarded(C, row, n0 + h * (BN / 2) + tx * 4, M, N, c_vec,
                           make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                                       acc[i][h * 4 + 3]));
    }
}
// [store]

#endif
