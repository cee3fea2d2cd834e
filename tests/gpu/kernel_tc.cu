/**
 * @file tests/gpu/kernel_tc.cu
 * @brief Deliberately wrong tensor-core GEMM kernels (sm_90a builds): each
 *        is chapter 01's blocked_tc with one planted fault, which the
 *        verification must catch (exit 1); the last is made persistent, as
 *        chapters 04-07's are, with their classic mistake.
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "../../common/gemm_driver.h"
#include "../../01_naive/blocked_tc.cuh"

enum tc_fault { TC_UNSWIZZLED, TC_K_TAIL };

#define TC_SMEM (TC_STAGE_BYTES + SW128_ATOM_BYTES)

__global__ void __launch_bounds__(TC_CONSUMERS, 1)
gemm_faulty_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
               float *__restrict__ C, int fault)
{
    extern __shared__ uint8_t smem_raw[];
    uint8_t *As = align1024(smem_raw), *Bs = As + TC_A_BYTES;
    const int wg = threadIdx.x / WG_THREADS, t = threadIdx.x % WG_THREADS;
    const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN;
    const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
    float acc[TC_ACC] = {};
    /* TC_K_TAIL: the last, partial K tile is dropped */
    for (int k0 = 0; fault == TC_K_TAIL ? k0 + TC_BK <= K : k0 < K; k0 += TC_BK) {
        tile_chunks<TC_CONSUMERS>(As, Bs, A, B, M, N, K, m0, n0, k0, a_vec, b_vec, threadIdx.x, load_store16);
        if (fault == TC_UNSWIZZLED) { /* A rewritten row-major, while the descriptors still say 128-byte swizzle */
            __syncthreads();
            for (int e = threadIdx.x; e < TC_BM * 8; e += TC_CONSUMERS) {
                const int r = e / 8, c = e % 8;
                *reinterpret_cast<uint4 *>(As + r * SW128_ROW_BYTES + c * 16) =
                    load8_or_zero(A, m0 + r, k0 + c * 8, M, K, a_vec);
            }
        }
        fence_proxy_async();
        __syncthreads();
        mma_tile(acc, smem_addr(As), smem_addr(Bs), wg);
        wgmma_wait(0);
        wgmma_touch(acc, TC_ACC);
        __syncthreads();
    }
    store_tile_tc(C, acc, m0, n0, M, N, wg, t);
}

static cudaError_t launch_faulty_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                    cudaStream_t stream, int fault)
{
    const dim3 grid((N + TC_BN - 1) / TC_BN, (M + TC_BM - 1) / TC_BM);
    cudaFuncSetAttribute(gemm_faulty_tc, cudaFuncAttributeMaxDynamicSharedMemorySize, TC_SMEM);
    gemm_faulty_tc<<<grid, TC_CONSUMERS, TC_SMEM, stream>>>(M, N, K, A, B, C, fault);
    return cudaGetLastError();
}

#define LAUNCHER(name, fault)                                                                                        \
    extern "C" cudaError_t launch_##name(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,       \
                                         cudaStream_t s)                                                             \
    {                                                                                                                \
        return launch_faulty_tc(M, N, K, A, B, C, s, fault);                                                         \
    }
LAUNCHER(tc_unswizzled, TC_UNSWIZZLED)
LAUNCHER(tc_k_tail, TC_K_TAIL)

/* TC_STALE_ACC: blocked_tc made persistent (each block takes every
 * gridDim.x-th tile) with the accumulators zeroed once per block instead of
 * once per tile, the mistake chapter 04's tile loop must not make: every
 * tile after a block's first adds the previous tiles' sums. */
__global__ void __launch_bounds__(TC_CONSUMERS, 1)
gemm_stale_acc_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                  float *__restrict__ C)
{
    extern __shared__ uint8_t smem_raw[];
    uint8_t *As = align1024(smem_raw), *Bs = As + TC_A_BYTES;
    const int wg = threadIdx.x / WG_THREADS, t = threadIdx.x % WG_THREADS;
    const int tiles_n = (N + TC_BN - 1) / TC_BN, tiles = tiles_n * ((M + TC_BM - 1) / TC_BM);
    const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
    float acc[TC_ACC] = {}; /* the fault: here, not inside the tile loop */
    for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int m0 = tile / tiles_n * TC_BM, n0 = tile % tiles_n * TC_BN;
        for (int k0 = 0; k0 < K; k0 += TC_BK) {
            tile_chunks<TC_CONSUMERS>(As, Bs, A, B, M, N, K, m0, n0, k0, a_vec, b_vec, threadIdx.x, load_store16);
            fence_proxy_async();
            __syncthreads();
            mma_tile(acc, smem_addr(As), smem_addr(Bs), wg);
            wgmma_wait(0);
            wgmma_touch(acc, TC_ACC);
            __syncthreads();
        }
        store_tile_tc(C, acc, m0, n0, M, N, wg, t);
    }
}

extern "C" cudaError_t launch_tc_stale_acc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                           cudaStream_t s)
{
    const int tiles = ((N + TC_BN - 1) / TC_BN) * ((M + TC_BM - 1) / TC_BM);
    cudaFuncSetAttribute(gemm_stale_acc_tc, cudaFuncAttributeMaxDynamicSharedMemorySize, TC_SMEM);
    /* fewer blocks than tiles, so that blocks take more than one */
    gemm_stale_acc_tc<<<(tiles + 1) / 2, TC_CONSUMERS, TC_SMEM, s>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
