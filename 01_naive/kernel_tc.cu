/**
 * @file 01_naive/kernel_tc.cu
 * @brief Chapter 01 on the tensor cores: blocked_tc, the synchronous
 *        baseline of the BF16 line (C FP32 = A BF16 x B BF16, row-major).
 *
 * gemm_blocked's rhythm (load, wait, multiply, wait) with the tensor cores
 * doing the multiply: the block's two warpgroups each multiply 64 rows of
 * A by the whole B tile, stored in the 128-byte swizzle that wgmma reads
 * (wgmma.cuh). mma_tile() (blocked_tc.cuh) is `wgmma` on sm_90a and the
 * warp-level `mma.sync` with `ldmatrix` on every other GPU from sm_80
 * (mma_sync.cuh), reading the same tiles.
 *
 * Parent: none. Knobs: make help. Built for sm_80 and later.
 */

#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "blocked_tc.cuh" /* the tile, tile_chunks(), mma_tile(), store_tile_tc() */

#define TC_SMEM (TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< one A and one B tile, + room to align to 1024 */

extern "C" const char gemm_blocked_tc_knobs[] = TC_TILE_KNOBS;

/**
 * @brief Synchronous tensor-core GEMM: per TC_BK step, every thread copies
 *        its share of the A and B tiles into shared memory, the block
 *        waits, each warpgroup multiplies its 64 rows (mma_tile()) and
 *        waits for them, and the block waits again before the tiles are
 *        overwritten.
 */
// [kernel]
__global__ void __launch_bounds__(TC_CONSUMERS, 1)
gemm_blocked_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *As = align1024(smem_raw), *Bs = As + TC_A_BYTES;

    const int wg = threadIdx.x / WG_THREADS, t = threadIdx.x % WG_THREADS;
    const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN;
    const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
    float acc[TC_ACC] = {};

    for (int k0 = 0; k0 < K; k0 += TC_BK) {
        TRACE_BEGIN(t_load);
        tile_chunks<TC_CONSUMERS>(As, Bs, A, B, M, N, K, m0, n0, k0, a_vec, b_vec, threadIdx.x, load_store16);
        /* The stores went through the generic proxy; wgmma reads through
         * the async proxy: fence (on that path), then the barrier publishes them. */
        fence_tile_stores();
        TRACE_END(t_load, TRACE_LOAD, k0 / TC_BK);
        TRACE_BEGIN(t_full);
        __syncthreads(); /* both tiles complete before any wgmma reads them */
        TRACE_END(t_full, TRACE_SYNC, k0 / TC_BK);

        TRACE_BEGIN(t_math);
        mma_tile(acc, smem_addr(As), smem_addr(Bs), wg);
        mma_wait(acc); /* the tensor cores are done with the tiles */
        TRACE_END(t_math, TRACE_COMPUTE, k0 / TC_BK);
        TRACE_BEGIN(t_free);
        __syncthreads(); /* both warpgroups are done with the tiles before they are overwritten */
        TRACE_END(t_free, TRACE_SYNC, k0 / TC_BK);
    }
    TRACE_BEGIN(t_store);
    store_tile_tc(C, acc, m0, n0, M, N, wg, t);
    TRACE_END(t_store, TRACE_STORE, -1);
}
// [kernel]

extern "C" cudaError_t launch_gemm_blocked_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                              cudaStream_t stream)
{
    const cudaError_t err = smem_opt_in((const void *)gemm_blocked_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + TC_BN - 1) / TC_BN, (M + TC_BM - 1) / TC_BM);
    gemm_blocked_tc<<<grid, TC_CONSUMERS, TC_SMEM, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(blocked_tc, TC_SMEM)
