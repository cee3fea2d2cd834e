/**
 * @file 01_naive/kernel.cu
 * @brief Chapter 01: gemm_blocked, the register-blocked synchronous GEMM
 *        (C = A x B, row-major FP32) every GEMM chapter starts from.
 *
 * Each thread computes an 8 x 8 block of C from registers, and tiles of A
 * and B reach shared memory in 16-byte pieces; the block loads, waits at
 * __syncthreads(), computes and waits again, so only other resident blocks
 * hide the loads. variants.cu holds the two steps that lead here.
 *
 * Parent: none. Knobs: make help.
 */

#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(MIN_BLOCKS)
#error "BM BN BK MIN_BLOCKS: set by 01_naive/Makefile (make help lists them); build with make"
#endif

#include "blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */

#define A_LOADS (BM * BK / 4 / BLOCKED_THREADS) /**< float4 loads per thread per A tile */
#define B_LOADS (BK * BN / 4 / BLOCKED_THREADS) /**< float4 loads per thread per B tile */
static_assert((BM * BK / 4) % BLOCKED_THREADS == 0 && A_LOADS > 0,
              "the A tile must split evenly into one or more float4 per thread");
static_assert((BK * BN / 4) % BLOCKED_THREADS == 0 && B_LOADS > 0,
              "the B tile must split evenly into one or more float4 per thread");
static_assert(BLOCKED_THREADS <= 1024, "too many threads per block");

extern "C" const char gemm_blocked_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS);

/**
 * @brief Register-blocked GEMM: each of the block's threads computes an
 *        8 x 8 piece of the block's BM x BN tile of C.
 *
 * Per step of BK, every thread copies its share of the A and B tiles into
 * shared memory with 16-byte loads, the block waits, and each thread runs BK
 * rank-1 updates of its 64 accumulators (compute_tile()): 8 + 8 values read
 * from shared memory feed 64 FMAs, where the tiled kernel needed two
 * shared-memory reads per FMA.
 */
// [blocked]
__global__ void __launch_bounds__(BLOCKED_THREADS, MIN_BLOCKS)
gemm_blocked(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    /* The A tile is stored transposed (k-major), so the 8 A values a thread
     * needs at one k are two float4; the padding spreads the transposing
     * stores over more banks. The B tile keeps B's layout. */
    __shared__ __align__(16) float As[BK][BM + A_PAD];
    __shared__ __align__(16) float Bs[BK][BN];

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool a_vec = rows_aligned16(A, K), b_vec = rows_aligned16(B, N);
    float acc[TM][TN] = {};

    for (int k0 = 0; k0 < K; k0 += BK) {
        TRACE_BEGIN(t_load);
        // ---- exercise 01.1: Copy the A and B tiles into shared memory ----
        // hint: the block's threads share each tile: element e = tid + l * BLOCKED_THREADS
        // hint: (A_LOADS of A, B_LOADS of B per thread) is row e / (width / 4), column
        // hint: (e % (width / 4)) * 4. load4_or_zero() reads 16 bytes (zeros outside the
        // hint: matrix); store A transposed (As[k][m], four scalar stores), B as it is.
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
        // ---- end of exercise 01.1 ----
        TRACE_END(t_load, TRACE_LOAD, k0 / BK);
        TRACE_BEGIN(t_full);
        // ---- exercise 01.2: Make the block wait where a tile changes hands ----
        // hint: no thread may read the tiles before every thread has written its part,
        // hint: and none may overwrite them while another still reads (two places).
        __syncthreads(); /* both tiles complete: all loads finish before any math */
        // ---- end of exercise 01.2 ----
        TRACE_END(t_full, TRACE_SYNC, k0 / BK);

        TRACE_BEGIN(t_math);
        compute_tile(acc, As, Bs, tx, ty);
        TRACE_END(t_math, TRACE_COMPUTE, k0 / BK);
        TRACE_BEGIN(t_free);
        // ---- exercise 01.2: Make the block wait where a tile changes hands ----
        __syncthreads(); /* everyone is done with the tiles before they are overwritten */
        // ---- end of exercise 01.2 ----
        TRACE_END(t_free, TRACE_SYNC, k0 / BK);
    }
    TRACE_BEGIN(t_store);
    store_tile(C, acc, m0, n0, M, N, tx, ty);
    TRACE_END(t_store, TRACE_STORE, -1);
}
// [blocked]

extern "C" cudaError_t launch_gemm_blocked(int M, int N, int K, const float *A, const float *B,
                                           float *C, cudaStream_t stream)
{
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_blocked<<<grid, BLOCKED_THREADS, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
