/**
 * @file 07_tma_multicast/staging.cu
 * @brief Chapter 07's staging pass: what the TMA kernels copy first when a
 *        tensor map cannot describe the operand as it lies in memory.
 *
 * A tensor map needs a 16-byte-aligned base and rows whose length in bytes
 * is a multiple of 16, and TMA copies a box as it lies, without
 * transposing. So A^T is written for the kernels that read the A tile
 * transposed (the lesson kernels, tma128_transposed and tma128_fenced),
 * and A or B is copied with rows padded to 16 bytes when K or N is not a
 * multiple of 4 (or the pointer is misaligned). The tensor maps still give
 * the real sizes, so the padding is never read. The staging buffers are
 * kept between calls and grow as needed.
 */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernel.h"

/** @brief A^T (or A padded) and B padded, for what a tensor map cannot read as it is. */
typedef struct {
    float *a;       /**< A^T or A, rows padded to 16 bytes */
    float *b;       /**< B likewise */
    size_t a_bytes; /**< bytes allocated at a */
    size_t b_bytes; /**< bytes allocated at b */
} staging;
static staging stage_buf;

/** @brief Make sure @p *p holds at least @p bytes. */
static cudaError_t reserve(float **p, size_t *have, size_t bytes)
{
    if (*have >= bytes) return cudaSuccess;
    if (*p != NULL) cudaFree(*p);
    *have = 0;
    const cudaError_t err = cudaMalloc((void **)p, bytes);
    if (err == cudaSuccess) *have = bytes;
    return err;
}

/**
 * @brief A^T, with rows padded to @p mp floats: At[k][m] = A[m][k]. Through
 *        a 32 x 32 tile in shared memory, so both the reads of A and the
 *        writes of At are coalesced (the +1 column avoids bank conflicts).
 */
__global__ void transpose_pad(const float *__restrict__ A, int M, int K, float *__restrict__ At, int mp)
{
    __shared__ float t[32][33];
    const int k = blockIdx.x * 32 + threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += 8) {
        const int m = blockIdx.y * 32 + j;
        if (m < M && k < K) t[j][threadIdx.x] = A[(size_t)m * K + k];
    }
    __syncthreads();
    const int m = blockIdx.y * 32 + threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += 8) {
        const int kk = blockIdx.x * 32 + j;
        if (kk < K && m < M) At[(size_t)kk * mp + m] = t[threadIdx.x][j];
    }
}

extern "C" int tma_needs_staging(int N, int K, const float *A, const float *B, int transpose_a)
{
    const int a = transpose_a || K % 4 != 0 || (uintptr_t)A % 16 != 0;
    const int b = N % 4 != 0 || (uintptr_t)B % 16 != 0;
    return a | b << 1;
}

// [staging]
extern "C" cudaError_t tma_stage(int M, int N, int K, const float *A, const float *B, int transpose_a,
                                 const float **Ap, const float **Bp, size_t *lda, size_t *ldb, cudaStream_t stream)
{
    const int need = tma_needs_staging(N, K, A, B, transpose_a);
    const size_t np = (N + 3) / 4 * 4;
    cudaError_t err;
    if ((need & 1) && transpose_a) {
        /* TMA copies boxes as they lie in memory and cannot transpose: give it A^T. */
        const size_t mp = (M + 3) / 4 * 4;
        if ((err = reserve(&stage_buf.a, &stage_buf.a_bytes, (size_t)K * mp * sizeof(float))) != cudaSuccess)
            return err;
        transpose_pad<<<dim3((K + 31) / 32, (M + 31) / 32), dim3(32, 8), 0, stream>>>(A, M, K, stage_buf.a,
                                                                                      (int)mp);
        if ((err = cudaGetLastError()) != cudaSuccess) return err;
        *Ap = stage_buf.a;
        *lda = mp * sizeof(float);
    } else if (need & 1) {
        /* Rows padded to a multiple of 4 floats (16 bytes). */
        const size_t kp = (K + 3) / 4 * 4;
        if ((err = reserve(&stage_buf.a, &stage_buf.a_bytes, (size_t)M * kp * sizeof(float))) != cudaSuccess ||
            (err = cudaMemcpy2DAsync(stage_buf.a, kp * sizeof(float), A, (size_t)K * sizeof(float),
                                     (size_t)K * sizeof(float), M, cudaMemcpyDeviceToDevice, stream)) != cudaSuccess)
            return err;
        *Ap = stage_buf.a;
        *lda = kp * sizeof(float);
    }
    if (need & 2) {
        if ((err = reserve(&stage_buf.b, &stage_buf.b_bytes, (size_t)K * np * sizeof(float))) != cudaSuccess ||
            (err = cudaMemcpy2DAsync(stage_buf.b, np * sizeof(float), B, (size_t)N * sizeof(float),
                                     (size_t)N * sizeof(float), K, cudaMemcpyDeviceToDevice, stream)) != cudaSuccess)
            return err;
        *Bp = stage_buf.b;
        *ldb = np * sizeof(float);
    }
    return cudaSuccess;
}
// [staging]
