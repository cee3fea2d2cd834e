/**
 * @file tests/gpu/kernel.cu
 * @brief Deliberately wrong GEMM kernels: the GPU tests run each one and
 *        expect the harness to catch it (exit 1, a racecheck report, or the
 *        watchdog's exit 5). A verification that passed any of these would
 *        be worthless.
 *
 * Each is chapter 01's tiled kernel with one planted fault.
 */
#include <cuda_runtime.h>

#include "../../common/gemm_driver.h"

#define T 16

enum fault { TILE_BOUND, UNWRITTEN, ONE_NAN, RACE, HANG };

__global__ void gemm_faulty(int M, int N, int K, const float *__restrict__ A,
                            const float *__restrict__ B, float *C, int fault)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    /* off-by-one in the K-tile bound: the last column of A is treated as padding */
    const int k_end = fault == TILE_BOUND ? K - 1 : K;
    float acc = 0.0f;

    if (fault == HANG) /* wait for a flag nobody sets: C stays NaN-poisoned */
        while (isnan(*(volatile float *)&C[0])) __nanosleep(1000);

    for (int k0 = 0; k0 < K; k0 += T) {
        As[ty][tx] = (row < M && k0 + tx < k_end) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < T; ++k) acc += As[ty][k] * Bs[k][tx];
        if (fault != RACE) __syncthreads(); /* RACE: next tile overwrites while others read */
    }
    if (row >= M || col >= N) return;
    if (fault == UNWRITTEN && col == N - 1) return; /* last column never stored */
    if (fault == ONE_NAN && row == M / 2 && col == N / 2) acc = nanf("");
    C[row * N + col] = acc;
}

static cudaError_t launch(int M, int N, int K, const float *A, const float *B, float *C,
                          cudaStream_t s, int fault)
{
    const dim3 block(T, T), grid((N + T - 1) / T, (M + T - 1) / T);
    gemm_faulty<<<grid, block, 0, s>>>(M, N, K, A, B, C, fault);
    return cudaGetLastError();
}

#define LAUNCHER(name, fault)                                                              \
    extern "C" cudaError_t launch_##name(int M, int N, int K, const float *A, const float *B, \
                                         float *C, cudaStream_t s)                          \
    {                                                                                       \
        return launch(M, N, K, A, B, C, s, fault);                                          \
    }
LAUNCHER(tile_bound, TILE_BOUND)
LAUNCHER(unwritten, UNWRITTEN)
LAUNCHER(one_nan, ONE_NAN)
LAUNCHER(race, RACE)
LAUNCHER(hang, HANG)
