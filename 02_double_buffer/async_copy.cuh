/**
 * @file 02_double_buffer/async_copy.cuh
 * @brief Asynchronous tile copies for the pipelined GEMM chapters:
 *        introduced in chapter 02, reused by chapter 03's producer warps.
 *
 * A stage of the shared-memory ring holds one A tile (transposed,
 * As[k][m], 01_naive/blocked.cuh's layout) and one B tile (Bs[k][n]),
 * STAGE_FLOATS floats in all.
 */
#ifndef CH02_ASYNC_COPY_CUH
#define CH02_ASYNC_COPY_CUH

#include <cuda/pipeline>

#include "../01_naive/blocked.cuh" /* BM, BN, BK, A_PAD: the tiles */

/* The ring depth, checked once here for every kernel with a ring of these stages. */
#ifdef STAGES
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
#endif

#define STAGE_FLOATS (BK * (BM + A_PAD) + BK * BN) /**< floats of one stage (A tile + B tile) */
#define RING_BYTES ((size_t)STAGES * STAGE_FLOATS * sizeof(float)) /**< dynamic shared memory of the ring */

/** @brief The A tile of stage @p s in the dynamic shared memory (As[k][m], as chapter 01). */
__device__ __forceinline__ float (*stage_a(float *smem, int s))[BM + A_PAD]
{
    return reinterpret_cast<float (*)[BM + A_PAD]>(smem + s * STAGE_FLOATS);
}

/** @brief The B tile of stage @p s (Bs[k][n]). */
__device__ __forceinline__ float (*stage_b(float *smem, int s))[BN]
{
    return reinterpret_cast<float (*)[BN]>(smem + s * STAGE_FLOATS + BK * (BM + A_PAD));
}

/**
 * @brief Start this thread's copies of K-tile @p k0 into one stage.
 *
 * Every copy is the calling thread's own (`cuda::memcpy_async` without a
 * group argument), sized for what it moves: 16 bytes for a piece of B that
 * lies inside an aligned row, 4 bytes for each element of A (which is
 * transposed on the way in, as in chapter 01) and for B at the edges.
 * Elements outside the matrix are written as zeros with ordinary stores;
 * the pipeline's stage barrier publishes those too. The @p nthreads
 * copying threads (ids @p tid = 0 .. nthreads-1) split the tile between
 * them; nthreads must divide BM*AK/4 and BK*BN/4, and is a compile-time
 * constant at every call, so the loops unroll.
 *
 * A tile that lies wholly inside its matrix (every tile but those of the
 * last row or column) takes a path without per-element checks: the four
 * copies of a piece of A share one address plus constant offsets, so each
 * copy is about one instruction. The copies are issued on the same
 * schedulers as the FMAs, for every stage, so their cost is paid in the
 * main loop.
 *
 * Chapter 06 copies only part of the A tile: its @p AK columns from
 * column @p ak (the defaults are the whole tile). @p Pipe is the
 * cuda::pipeline the copies join: block scope in chapters 02-04, thread
 * scope in chapter 06.
 */
// [issue]
template <int AK = BK, class Pipe>
__device__ __forceinline__ void issue_tile(float (*As)[BM + A_PAD], float (*Bs)[BN],
                                           const float *__restrict__ A,
                                           const float *__restrict__ B, int M, int N, int K,
                                           int m0, int n0, int k0, bool b_vec, int tid,
                                           int nthreads, Pipe &pipe, int ak = 0)
{
    if (m0 + BM <= M && k0 + ak + AK <= K) { /* no element of the A tile lies outside A */
#pragma unroll
        for (int l = 0; l < BM * AK / 4 / nthreads; ++l) {
            const int e = tid + l * nthreads;
            const int r = e / (AK / 4), c = ak + (e % (AK / 4)) * 4;
            const float *a = A + (size_t)(m0 + r) * K + k0 + c;
#pragma unroll
            for (int i = 0; i < 4; ++i)
                cuda::memcpy_async(&As[c + i][r], a + i, cuda::aligned_size_t<4>(sizeof(float)), pipe);
        }
    } else {
#pragma unroll
        for (int l = 0; l < BM * AK / 4 / nthreads; ++l) {
            const int e = tid + l * nthreads;
            const int r = e / (AK / 4), c = ak + (e % (AK / 4)) * 4;
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (m0 + r < M && k0 + c + i < K)
                    cuda::memcpy_async(&As[c + i][r], &A[(m0 + r) * K + k0 + c + i],
                                       cuda::aligned_size_t<4>(sizeof(float)), pipe);
                else
                    As[c + i][r] = 0.0f;
            }
        }
    }
    if (b_vec && k0 + BK <= K && n0 + BN <= N) { /* every piece of B is 16 aligned bytes inside B */
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / nthreads; ++l) {
            const int e = tid + l * nthreads;
            const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
            cuda::memcpy_async(&Bs[r][c], B + (size_t)(k0 + r) * N + n0 + c,
                               cuda::aligned_size_t<16>(4 * sizeof(float)), pipe);
        }
        return;
    }
#pragma unroll
    for (int l = 0; l < BK * BN / 4 / nthreads; ++l) {
        const int e = tid + l * nthreads;
        const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        const int row = k0 + r, col = n0 + c;
        if (b_vec && row < K && col + 3 < N) {
            cuda::memcpy_async(&Bs[r][c], &B[row * N + col],
                               cuda::aligned_size_t<16>(4 * sizeof(float)), pipe);
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                if (row < K && col + i < N)
                    cuda::memcpy_async(&Bs[r][c + i], &B[row * N + col + i],
                                       cuda::aligned_size_t<4>(sizeof(float)), pipe);
                else
                    Bs[r][c + i] = 0.0f;
            }
        }
    }
}
// [issue]

#endif
