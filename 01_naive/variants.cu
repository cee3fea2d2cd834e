/**
 * @file 01_naive/variants.cu
 * @brief The two steps before chapter 01's lesson kernel (kernel.cu), each
 *        adding one idea, measured in the same table:
 *  - gemm_naive: one thread per element of C, operands read from global
 *    memory every time they are used;
 *  - gemm_tiled: a block stages TILE x TILE tiles of A and B in shared
 *    memory, so each global element is read once per block instead of once
 *    per thread (the book's "naive tiling").
 */
#include <cuda_runtime.h>

#include "../common/launch.cuh" /* KNOB() */
#include "variants.h"

/* ------------------------------------------------------------------------ */
/* naive                                                                     */
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
// [naive]
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
// [naive]

extern "C" cudaError_t launch_gemm_naive(int M, int N, int K, const float *A, const float *B,
                                         float *C, cudaStream_t stream)
{
    const dim3 block(NAIVE_BX, NAIVE_BY);
    const dim3 grid((N + NAIVE_BX - 1) / NAIVE_BX, (M + NAIVE_BY - 1) / NAIVE_BY);
    gemm_naive<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}

/* ------------------------------------------------------------------------ */
/* tiled                                                                     */
/* ------------------------------------------------------------------------ */

#if !defined(TILE)
#error "TILE: set by 01_naive/Makefile (make help lists them); build with make"
#endif
static_assert(TILE * TILE <= 1024, "TILE x TILE threads must fit in one block");

extern "C" const char gemm_tiled_knobs[] = KNOB(TILE);

/**
 * @brief A TILE x TILE block stages tiles of A and B in shared memory.
 *
 * Each thread loads one element of each tile and computes one element of C.
 * Out-of-range elements are loaded as zero, so any M, N, K works and the
 * inner loop needs no bounds checks.
 */
// [tiled]
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
// [tiled]

extern "C" cudaError_t launch_gemm_tiled(int M, int N, int K, const float *A, const float *B,
                                         float *C, cudaStream_t stream)
{
    const dim3 block(TILE, TILE);
    const dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_tiled<<<grid, block, 0, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
