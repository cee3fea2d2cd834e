/**
 * @file 07_tma_multicast/tensor_map.h
 * @brief Tensor maps for the Tensor Memory Accelerator (chapter 07), made
 *        on the host with the driver's cuTensorMapEncodeTiled, which is
 *        reached through cudaGetDriverEntryPointByVersion(): no -lcuda.
 *
 * A tensor map describes a 2-D row-major FP32 (or BF16) matrix in global memory and
 * the box (tile) one TMA copy moves. The hardware's rules, checked here
 * with a message that names the one broken: the base address and the row
 * stride are multiples of 16 bytes, each box side is 1..256 elements, and
 * with a swizzle a box row is at most the swizzle's span (32, 64 or 128 bytes).
 */
#ifndef CH07_TENSOR_MAP_H
#define CH07_TENSOR_MAP_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h> /* CUtensorMap and its enums only; the function comes from the runtime */
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Describe @p rows x @p cols floats at @p base, @p row_bytes apart,
 *        copied in boxes of @p box_rows x @p box_cols.
 *
 * Box parts outside rows x cols are filled with zeros by the hardware,
 * so the tails of a matrix need no code in the kernel.
 * @param map        receives the tensor map
 * @param base       the matrix's first element (16-byte aligned)
 * @param rows, cols its size in elements
 * @param row_bytes  distance between rows in bytes (a multiple of 16)
 * @param box_rows, box_cols  the box one copy moves (1..256 each)
 * @param swizzle     bytes: 128 (CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk j
 *                    of box row r lands at chunk j ^ (r % 8)), 64 (chunk j
 *                    of a 64-byte row r at j ^ ((r / 2) % 4)), 32, or 0: none
 * @param why         receives the reason on failure (may be NULL)
 * @param whylen      size of @p why
 * @return 0 on success; 1 when a rule is broken or the driver refuses
 */
int tma_map_2d(CUtensorMap *map, const float *base, uint64_t rows, uint64_t cols, uint64_t row_bytes,
               uint32_t box_rows, uint32_t box_cols, int swizzle, char *why, size_t whylen);

/**
 * @brief As tma_map_2d(), for a matrix of BF16 values (uint16_t), as the
 *        tensor-core kernel's A and B (kernel_tc.cu).
 */
int tma_map_2d_bf16(CUtensorMap *map, const uint16_t *base, uint64_t rows, uint64_t cols, uint64_t row_bytes,
                    uint32_t box_rows, uint32_t box_cols, int swizzle, char *why, size_t whylen);

/**
 * @brief A BF16 matrix as a tensor map can describe it. Where the rows of
 *        the @p rows x @p cols matrix at *@p p do not start at multiples of
 *        16 bytes (@p cols not a multiple of 8, or *@p p not 16-byte
 *        aligned), copy it in @p stream to a buffer whose rows do, padded,
 *        and point *@p p at it; *@p pitch receives the row stride in bytes.
 * @param p       the matrix's first element (device memory); replaced by the copy's
 * @param pitch   receives the distance between rows in bytes
 * @param rows, cols  its size in elements
 * @param stream  where the copy is made, in order with the kernel that reads it
 * @param padded  receives that buffer, NULL where none was needed: the
 *                caller frees it after its last use in @p stream, with
 *                cudaFreeAsync(*padded, stream) (stream order keeps it
 *                until the kernel that reads it is done)
 * @return the first failed call's error, or cudaSuccess
 */
cudaError_t tma_rows_aligned_bf16(const uint16_t **p, size_t *pitch, int rows, int cols, void **padded,
                                  cudaStream_t stream);

/**
 * @brief Free @p padded, a buffer of tma_rows_aligned_bf16() (NULL: none),
 *        in @p stream's order, after the work already queued.
 * @return @p err if it is an error, else this call's
 */
cudaError_t tma_padding_free(void *padded, cudaStream_t stream, cudaError_t err);

#ifdef __cplusplus
}
#endif

#endif
