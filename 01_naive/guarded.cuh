/**
 * @file 01_naive/guarded.cuh
 * @brief Guarded 16-byte loads and stores: whole float4s inside the matrix,
 *        element by element at its edges. Chapter 01's, used by every GEMM
 *        chapter (through blocked.cuh, or alone where a chapter has its own
 *        compute step and thread layout, as chapter 07).
 */
#ifndef CH01_GUARDED_CUH
#define CH01_GUARDED_CUH

#include <stdint.h>
#include <cuda_runtime.h>

// [load4]
/**
 * @brief Elements [col, col+4) of row @p row of a rows x cols matrix, zero
 *        outside the matrix.
 *
 * One 16-byte load when all four are inside and rows are 16-byte aligned
 * (@p vec); element by element at the edges and for odd leading dimensions,
 * where a 16-byte load would be misaligned or run past the row.
 */
__device__ __forceinline__ float4 load4_or_zero(const float *__restrict__ p, int row, int col,
                                                int rows, int cols, bool vec)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= rows) return v;
    const float *q = p + row * cols + col;
    if (vec && col + 3 < cols) return *reinterpret_cast<const float4 *>(q);
    if (col + 0 < cols) v.x = q[0];
    if (col + 1 < cols) v.y = q[1];
    if (col + 2 < cols) v.z = q[2];
    if (col + 3 < cols) v.w = q[3];
    return v;
}
// [load4]

/** @brief Write four consecutive elements of C, dropping those outside it. */
__device__ __forceinline__ void store4_guarded(float *__restrict__ p, int row, int col, int rows,
                                               int cols, bool vec, float4 v)
{
    if (row >= rows) return;
    float *q = p + row * cols + col;
    if (vec && col + 3 < cols) {
        *reinterpret_cast<float4 *>(q) = v;
        return;
    }
    if (col + 0 < cols) q[0] = v.x;
    if (col + 1 < cols) q[1] = v.y;
    if (col + 2 < cols) q[2] = v.z;
    if (col + 3 < cols) q[3] = v.w;
}

/** @brief 1 when every row of a matrix with @p cols columns at @p p starts 16-byte aligned. */
__device__ __forceinline__ bool rows_aligned16(const void *p, int cols)
{
    return cols % 4 == 0 && (uintptr_t)p % 16 == 0;
}

#endif
