/**
 * @file 01_naive/demos/ceiling.cu
 * @brief The ceilings the two lines run against, measured on this GPU: each
 *        kernel here issues one instruction back to back, from registers
 *        (FFMA, mma.sync) or shared memory (wgmma), on random data, with no
 *        global memory traffic in its loop and every SM busy
 *        (ceiling_demo.c times them: make ceiling, ./run --only ceiling).
 *
 * A GEMM kernel's rate over its instruction's ceiling says how much of what
 * the instruction can do it gets; over cuBLAS it says how it compares with
 * the best library code, which on Hopper multiplies with wgmma. An
 * mma.sync kernel on an H100 is judged by the mma.sync ceiling.
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "ceiling.h"

#include "../../common/ptx.cuh" /* smem_addr() */
#include "../mma_sync.cuh"
#include "../wgmma.cuh"


/** @brief FFMA back to back: each thread runs CEILING_FFMA_CHAINS dependent chains a = a * x + y, interleaved, @p iters times. */
__global__ void __launch_bounds__(CEILING_THREADS) ceiling_ffma(const float *__restrict__ seed, float *__restrict__ out,
                                                                int iters)
{
    const int lane = threadIdx.x % 32;
    const float x = seed[lane], y = seed[32 + lane];
    float a[CEILING_FFMA_CHAINS];
#pragma unroll
    for (int j = 0; j < CEILING_FFMA_CHAINS; ++j) a[j] = seed[64 + j];
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int j = 0; j < CEILING_FFMA_CHAINS; ++j) a[j] = fmaf(a[j], x, y);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CEILING_FFMA_CHAINS; ++j) s += a[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s; /* keeps the loop */
}

/** @brief mma.sync back to back: each warp adds A x B (the same random fragments) to CEILING_MMA_CHAINS accumulators, @p iters times. */
__global__ void __launch_bounds__(CEILING_THREADS) ceiling_mma_sync(const uint32_t *__restrict__ seed,
                                                                    float *__restrict__ out, int iters)
{
#if __CUDA_ARCH__ >= 800
    const int lane = threadIdx.x % 32;
    uint32_t a[4], b[2];
#pragma unroll
    for (int j = 0; j < 4; ++j) a[j] = seed[lane * 6 + j];
    b[0] = seed[lane * 6 + 4];
    b[1] = seed[lane * 6 + 5];
    float d[CEILING_MMA_CHAINS][4] = {};
    for (int i = 0; i < iters; ++i)
#pragma unroll
        for (int j = 0; j < CEILING_MMA_CHAINS; ++j) mma_m16n8k16(d[j], a, b);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < CEILING_MMA_CHAINS; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
    (void)seed, (void)out, (void)iters;
#endif
}

/**
 * @brief wgmma back to back from shared memory: each warpgroup multiplies its
 *        64 rows of a random 128 x 64 A tile by a random 64 x 256 B tile, in
 *        the 128-byte swizzle (wgmma.cuh), CEILING_WG_K_STEPS m64n256k16 per
 *        committed group, one group left running at each wait, @p iters times.
 */
__global__ void __launch_bounds__(2 * WG_THREADS, 1) ceiling_wgmma(const uint4 *__restrict__ seed,
                                                                 float *__restrict__ out, int iters)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ uint8_t smem_raw[];
    uint8_t *tiles = (uint8_t *)(((uintptr_t)smem_raw + SW128_ATOM_BYTES - 1) & ~(uintptr_t)(SW128_ATOM_BYTES - 1));
    for (int i = threadIdx.x; i < CEILING_WGMMA_TILE_BYTES / 16; i += blockDim.x)
        reinterpret_cast<uint4 *>(tiles)[i] = seed[i]; /* random bytes: any layout holds random BF16 */
    fence_proxy_async();
    __syncthreads();
    const uint32_t a = smem_addr(tiles) + threadIdx.x / WG_THREADS * 64 * SW128_ROW_BYTES;
    const uint32_t b = smem_addr(tiles) + 128 * SW128_ROW_BYTES;
    float d[128];
#pragma unroll
    for (int j = 0; j < 128; ++j) d[j] = 0.0f;
    for (int i = 0; i < iters; ++i) {
        wgmma_fence(); /* as mma_tile() does before each tile's group */
#pragma unroll
        for (int kk = 0; kk < CEILING_WG_K_STEPS; ++kk)
            wgmma_m64n256k16(d, wgmma_desc(a + kk * 32, 16, SW128_ATOM_BYTES),
                             wgmma_desc(b + kk * 16 * SW128_ROW_BYTES, 64 * SW128_ROW_BYTES, SW128_ATOM_BYTES), 1);
        wgmma_commit();
        wgmma_wait(1);
    }
    wgmma_wait(0);
    wgmma_touch(d, 128);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 128; ++j) s += d[j];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
#else
    (void)seed, (void)out, (void)iters;
#endif
}

extern "C" cudaError_t ceiling_grid(int which, int *blocks, int *threads, size_t *smem)
{
    const void *k = which == CEILING_FFMA ? (const void *)ceiling_ffma
                    : which == CEILING_MMA_SYNC ? (const void *)ceiling_mma_sync
                                                : (const void *)ceiling_wgmma;
    int dev, sms, per_sm;
    cudaError_t err;
    *threads = which == CEILING_WGMMA ? 2 * WG_THREADS : CEILING_THREADS;
    *smem = which == CEILING_WGMMA ? CEILING_WGMMA_TILE_BYTES + SW128_ATOM_BYTES : 0;
    if (which == CEILING_WGMMA &&
        (err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)*smem)) != cudaSuccess)
        return err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, *threads, *smem)) != cudaSuccess)
        return err;
    *blocks = per_sm * sms; /* every SM as full as it gets */
    return per_sm > 0 ? cudaSuccess : cudaErrorInvalidConfiguration;
}

extern "C" cudaError_t launch_ceiling(const ceiling_run *r, cudaStream_t stream)
{
    switch (r->which) {
    case CEILING_FFMA:
        ceiling_ffma<<<r->blocks, r->threads, 0, stream>>>((const float *)r->seed, r->out, r->iters);
        break;
    case CEILING_MMA_SYNC:
        ceiling_mma_sync<<<r->blocks, r->threads, 0, stream>>>((const uint32_t *)r->seed, r->out, r->iters);
        break;
    default:
        ceiling_wgmma<<<r->blocks, r->threads, r->smem, stream>>>((const uint4 *)r->seed, r->out, r->iters);
    }
    return cudaGetLastError();
}
