/**
 * @file 01_naive/blocked_tc.cuh
 * @brief The tensor-core line's tile and its moves, shared by its kernels
 *        (chapter 01's blocked_tc, and from chapter 02 on): the block's
 *        TC_BM x TC_BN tile of C, computed by two warpgroups of 64 rows
 *        each from TC_BK-deep tiles of A and B kept in wgmma's swizzled
 *        layout (wgmma.cuh); guarded 16-byte loads into that layout; the
 *        MMA step, mma_tile(); and the epilogue that writes the FP32
 *        accumulators to C.
 *
 * The MMA step has two implementations that read the same stages, so that
 * every chapter's producers are the same whichever multiplies: `wgmma`
 * (wgmma.cuh) where the build has it (TC_WGMMA=1: sm_90a), and the
 * warp-level `mma.sync` m16n8k16 fed by `ldmatrix` (mma_sync.cuh) on every
 * other GPU from sm_80, and on sm_90a with `make TC_MMA=mma_sync`.
 *
 * TC_BK = 64 BF16 is one 128-byte swizzled row, the widest the 128-byte
 * swizzle covers. TC_BN, the one knob, is 128 or 256 (wgmma's N).
 */
#ifndef CH01_BLOCKED_TC_CUH
#define CH01_BLOCKED_TC_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#include "mma_sync.cuh"
#include "wgmma.cuh"

#if !defined(TC_BN) || !defined(TC_MMA) || !defined(TC_WGMMA)
#error "TC_BN TC_MMA TC_WGMMA: set by the chapter's Makefile and common/common.mk (make help lists them); build with make"
#endif
static_assert(TC_BN == 128 || TC_BN == 256, "TC_BN must be 128 or 256 (the wgmma instructions this line uses)");

#define TC_BM 128 /**< rows of C per block: two warpgroups, 64 rows each (wgmma's M) */
#define TC_BK 64  /**< K per tile: one 128-byte swizzled row of BF16 */
#define TC_CONSUMERS (2 * WG_THREADS) /**< threads that run wgmma: two warpgroups */
#define TC_ACC (TC_BN / 2)           /**< FP32 accumulators per thread: 64 x TC_BN over 128 threads */
#define TC_A_BYTES (TC_BM * TC_BK * 2) /**< an A tile: TC_BM rows of 128 bytes */
#define TC_B_BYTES (TC_BK * TC_BN * 2) /**< a B tile: TC_BN / 64 panels of TC_BK rows of 128 bytes */
#define TC_STAGE_BYTES (TC_A_BYTES + TC_B_BYTES) /**< one A tile and one B tile (a multiple of 1024) */
#define TC_PANEL_COLS (SW128_ROW_BYTES / 2) /**< columns of a B panel: one swizzled row, 64 BF16 */
#define TC_PANEL_BYTES (TC_BK * SW128_ROW_BYTES) /**< one 64-column panel of a B tile */
/** @brief What every tensor-core kernel's knobs string starts with: the MMA path and the tile (KNOB(), common/launch.cuh). */
#define TC_TILE_KNOBS KNOB(TC_MMA) KNOB(TC_BM) KNOB(TC_BN) KNOB(TC_BK)
#define TC_WARP_COLS (TC_BN / 4) /**< mma.sync: columns of a warp's part of its warpgroup's 64 x TC_BN */
#define TC_WARP_N8 (TC_WARP_COLS / 8) /**< mma.sync: 8-column MMAs across a warp's part */

/** @brief The first multiple of 1024 bytes at or after @p p: where the swizzled tiles start. */
__device__ __forceinline__ uint8_t *align1024(uint8_t *p)
{
    return (uint8_t *)(((uintptr_t)p + SW128_ATOM_BYTES - 1) & ~(uintptr_t)(SW128_ATOM_BYTES - 1));
}

/** @brief 1 when every row of a BF16 matrix with @p cols columns at @p p starts 16-byte aligned. */
__device__ __forceinline__ bool rows_aligned16_bf16(const void *p, int cols)
{
    return cols % 8 == 0 && (uintptr_t)p % 16 == 0;
}

// [load8]
/**
 * @brief BF16 elements [col, col+8) of row @p row of a rows x cols matrix,
 *        as 16 bytes, zero outside the matrix: one 16-byte load inside it
 *        when rows are 16-byte aligned (@p vec), element by element at its
 *        edges and for widths that are not a multiple of 8.
 */
__device__ __forceinline__ uint4 load8_or_zero(const uint16_t *__restrict__ p, int row, int col, int rows,
                                               int cols, bool vec)
{
    uint4 v = make_uint4(0, 0, 0, 0);
    if (row >= rows) return v;
    const uint16_t *q = p + (size_t)row * cols + col;
    if (vec && col + 7 < cols) return *reinterpret_cast<const uint4 *>(q);
    uint16_t e[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) e[j] = col + j < cols ? q[j] : 0;
    v.x = e[0] | (uint32_t)e[1] << 16;
    v.y = e[2] | (uint32_t)e[3] << 16;
    v.z = e[4] | (uint32_t)e[5] << 16;
    v.w = e[6] | (uint32_t)e[7] << 16;
    return v;
}
// [load8]

/** @brief Byte offset, in an A tile, of the 16-byte chunk (@p r, @p c): row r, K columns [8c, 8c+8). */
__device__ __forceinline__ uint32_t a_chunk(int r, int c)
{
    return sw128_offset(r, c);
}

/** @brief Byte offset, in a B tile, of the chunk (@p k, @p c): K row k, columns [8c, 8c+8), in panel c / 8. */
__device__ __forceinline__ uint32_t b_chunk(int k, int c)
{
    return (uint32_t)(c / 8) * TC_PANEL_BYTES + sw128_offset(k, c % 8);
}

/** @brief A synchronous chunk copy (blocked_tc's): 16 bytes from global memory into registers, then into shared memory. */
__device__ __forceinline__ void load_store16(uint8_t *dst, const uint16_t *src)
{
    *reinterpret_cast<uint4 *>(dst) = *reinterpret_cast<const uint4 *>(src);
}

// [chunks]
/**
 * @brief This thread's share of the A and B tiles at @p k0, as 16-byte
 *        chunks: `copy(dst, src)` moves each chunk that lies inside its
 *        matrix, in an aligned row, from @p src (its first element) to
 *        @p dst in the swizzled tile; each other chunk (at the matrix's
 *        edges, or in rows that are not 16-byte aligned) is loaded
 *        element by element and stored here, zeros outside the matrix.
 *        Returns 1 when it stored any such chunk.
 *
 * BCOLS (TC_BN unless given) is the width of the B tile copied: chapter
 * 06's clusters copy a part of it, @p Bs and @p n0 then being the part's.
 *
 * The NTHREADS threads (ids @p tid) take every NTHREADS-th chunk. Inside
 * the matrices the chunks a thread takes lie a fixed distance apart in
 * global memory and, because a thread keeps its chunk column and its row
 * modulo 8 (or alternates between two), at fixed offsets in the swizzled
 * tile: the unrolled loops need an add per chunk, not the index
 * arithmetic of the edge path.
 */
template <int NTHREADS, int BCOLS = TC_BN, class Copy>
__device__ __forceinline__ bool tile_chunks(uint8_t *As, uint8_t *Bs, const uint16_t *__restrict__ A,
                                            const uint16_t *__restrict__ B, int M, int N, int K, int m0, int n0,
                                            int k0, bool a_vec, bool b_vec, int tid, Copy copy)
{
    constexpr int CB = BCOLS / 8;           /* chunks in a row of the B tile */
    constexpr int ASTEP = NTHREADS / 8;     /* rows between a thread's A chunks */
    constexpr int KSTEP = NTHREADS / CB;    /* K rows between a thread's B chunks */
    static_assert(NTHREADS % CB == 0 && ASTEP % 8 == 0 && (KSTEP % 8 == 0 || 8 % KSTEP == 0),
                  "the threads split the tiles into whole rows of chunks");
    if (a_vec && b_vec && m0 + TC_BM <= M && n0 + BCOLS <= N && k0 + TC_BK <= K) {
        const int c = tid % 8, r = tid / 8;
        const uint16_t *a = A + (size_t)(m0 + r) * K + k0 + c * 8;
        uint8_t *as = As + a_chunk(r, c); /* row r + i x ASTEP keeps r's swizzle: ASTEP is a multiple of 8 */
#pragma unroll
        for (int i = 0; i < TC_BM / ASTEP; ++i) copy(as + i * ASTEP * SW128_ROW_BYTES, a + (size_t)i * ASTEP * K);
        const int cb = tid % CB, k = tid / CB, x = (cb % 8) ^ (k & 7);
        const uint16_t *b = B + (size_t)(k0 + k) * N + n0 + cb * 8;
        uint8_t *bs = Bs + (cb / 8) * TC_PANEL_BYTES + k * SW128_ROW_BYTES;
        /* row k + i x KSTEP: its swizzle is k's, xor (i x KSTEP) % 8 (k < KSTEP: no carry) */
#pragma unroll
        for (int i = 0; i < TC_BK / KSTEP; ++i)
            copy(bs + i * KSTEP * SW128_ROW_BYTES + ((x ^ ((i * KSTEP) & 7)) << 4), b + (size_t)i * KSTEP * N);
        return false;
    }
    bool stored = false;
    for (int e = tid; e < TC_BM * 8; e += NTHREADS) {
        const int r = e / 8, c = e % 8, row = m0 + r, col = k0 + c * 8;
        if (a_vec && row < M && col + 7 < K) {
            copy(As + a_chunk(r, c), A + (size_t)row * K + col);
        } else {
            *reinterpret_cast<uint4 *>(As + a_chunk(r, c)) = load8_or_zero(A, row, col, M, K, a_vec);
            stored = true;
        }
    }
    for (int e = tid; e < TC_BK * CB; e += NTHREADS) {
        const int k = e / CB, c = e % CB, row = k0 + k, col = n0 + c * 8;
        if (b_vec && row < K && col + 7 < N) {
            copy(Bs + b_chunk(k, c), B + (size_t)row * N + col);
        } else {
            *reinterpret_cast<uint4 *>(Bs + b_chunk(k, c)) = load8_or_zero(B, row, col, K, N, b_vec);
            stored = true;
        }
    }
    return stored;
}
// [chunks]

#if TC_WGMMA
// [mma]
/**
 * @brief The warpgroup @p wg's share of one tile: its 64 rows of A times all
 *        of B, TC_BK / 16 wgmma in one committed group. Not waited for: see
 *        mma_wait().
 */
__device__ __forceinline__ void mma_tile(float acc[TC_ACC], uint32_t a_tile, uint32_t b_tile, int wg)
{
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < TC_BK / 16; ++kk) {
        /* A: this warpgroup's 64 rows, 16 K columns = 32 bytes further per step;
         * B: 16 K rows = 2048 bytes further per step. */
        const uint64_t da = wgmma_desc(a_tile + wg * 64 * SW128_ROW_BYTES + kk * 32, 16, SW128_ATOM_BYTES);
        const uint64_t db = wgmma_desc(b_tile + kk * 16 * SW128_ROW_BYTES, TC_PANEL_BYTES, SW128_ATOM_BYTES);
#if TC_BN == 256
        wgmma_m64n256k16(acc, da, db, 1);
#else
        wgmma_m64n128k16(acc, da, db, 1);
#endif
    }
    wgmma_commit();
}
// [mma]
#else
// [mma_sync]
/**
 * @brief The warpgroup @p wg's share of one tile, warp by warp: each of its
 *        4 warps multiplies the warpgroup's 64 rows of A by its own
 *        TC_WARP_COLS columns of B, 16 K columns at a time: ldmatrix the
 *        fragments (4 of A, 16 rows each; TC_WARP_N8 of B, 8 columns each),
 *        then 4 x TC_WARP_N8 mma.sync. Done on return (mma_wait() is for
 *        the wgmma path).
 */
__device__ __forceinline__ void mma_tile(float acc[TC_ACC], uint32_t a_tile, uint32_t b_tile, int wg)
{
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32 % 4; /* the warpgroups start at multiples of 128 */
#pragma unroll
    for (int kk = 0; kk < TC_BK / 16; ++kk) {
        uint32_t a[4][4];
        /* Lane l addresses row l % 16 of a 16-row slab, in chunk l / 16 of the K step's two: matrices 0-3 are
         * (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15), A's fragment. */
#pragma unroll
        for (int mi = 0; mi < 4; ++mi)
            ldmatrix_x4(a[mi], a_tile + a_chunk(wg * 64 + mi * 16 + lane % 16, kk * 2 + lane / 16));
        /* B's K rows kk*16 + l % 16, chunk l / 16 of 16 columns: transposed, the fragments of two 8-column
         * MMAs (registers 0-1 and 2-3), each multiplied by all four of A's. */
#pragma unroll
        for (int nj = 0; nj < TC_WARP_N8 / 2; ++nj) {
            uint32_t b[4];
            ldmatrix_x4_trans(b, b_tile + b_chunk(kk * 16 + lane % 16, (warp * TC_WARP_COLS + nj * 16) / 8 + lane / 16));
#pragma unroll
            for (int mi = 0; mi < 4; ++mi) {
                mma_m16n8k16(acc + (mi * TC_WARP_N8 + 2 * nj) * 4, a[mi], b);
                mma_m16n8k16(acc + (mi * TC_WARP_N8 + 2 * nj + 1) * 4, a[mi], b + 2);
            }
        }
    }
}
// [mma_sync]
#endif

/**
 * @brief Waits until this warpgroup's mma_tile()s are done: their sums in
 *        @p acc, their stages no longer read, so a stage may be given back.
 *        wgmma: the wait for every committed group, and the accumulators
 *        marked as written behind the compiler's back (wgmma_touch()).
 *        mma.sync: already done; the warp meets (__syncwarp()) so that
 *        every lane's ldmatrix reads come before one lane's release.
 */
__device__ __forceinline__ void mma_wait(float acc[TC_ACC])
{
#if TC_WGMMA
    wgmma_wait(0);
    wgmma_touch(acc, TC_ACC);
#else
    (void)acc;
    __syncwarp();
#endif
}

/**
 * @brief After this thread's ordinary stores into a stage (the edge chunks
 *        of tile_chunks()), before the barrier after which mma_tile() reads
 *        it. wgmma reads through the async proxy: fence_proxy_async().
 *        ldmatrix reads through the generic proxy, as the stores went, and
 *        the barrier orders them: nothing (and sm_80 has no such fence).
 */
__device__ __forceinline__ void fence_tile_stores()
{
#if TC_WGMMA
    fence_proxy_async();
#endif
}

/**
 * @brief Where accumulator @p i of thread @p t (0..127) of a warpgroup lies
 *        in the warpgroup's 64 x TC_BN: row and column. wgmma: each warp
 *        holds 16 rows, every 8 columns 4 values per thread (wgmma_acc_pos()).
 *        mma.sync: each warp holds all 64 rows of its TC_WARP_COLS columns,
 *        as 4 x TC_WARP_N8 16 x 8 results of 4 values per thread, one after
 *        the other. In both, values i and i + 1 (i even) are adjacent
 *        columns of a row, and values 16q to 16q + 15 lie in one 16 x 32
 *        piece, the thread's first at (t % 32 / 4, 2 (t % 4)) of it.
 */
__device__ __forceinline__ void tc_acc_pos(int t, int i, int *row, int *col)
{
#if TC_WGMMA
    wgmma_acc_pos(t, i, row, col);
#else
    const int lane = t % 32, f = i / 4, mi = f / TC_WARP_N8, ni = f % TC_WARP_N8;
    *row = mi * 16 + lane / 4 + (i / 2 & 1) * 8;
    *col = (t / 32) * TC_WARP_COLS + ni * 8 + lane % 4 * 2 + (i & 1);
#endif
}

/**
 * @brief Write warpgroup @p wg's 64 x TC_BN accumulators (thread @p t of it)
 *        to C at (@p m0, @p n0): two adjacent columns at once where N is
 *        even, one by one otherwise; nothing outside C.
 */
__device__ __forceinline__ void store_tile_tc(float *__restrict__ C, const float acc[TC_ACC], int m0, int n0,
                                              int M, int N, int wg, int t)
{
    const bool pairs = N % 2 == 0 && (uintptr_t)C % 8 == 0;
#pragma unroll
    for (int i = 0; i < TC_ACC; i += 2) {
        int r, c;
        tc_acc_pos(t, i, &r, &c);
        const int row = m0 + wg * 64 + r, col = n0 + c;
        if (row >= M) continue;
        float *q = C + (size_t)row * N + col;
        if (pairs && col + 1 < N) {
            *reinterpret_cast<float2 *>(q) = make_float2(acc[i], acc[i + 1]);
        } else {
            if (col < N) q[0] = acc[i];
            if (col + 1 < N) q[1] = acc[i + 1];
        }
    }
}

#endif
