/**
 * @file 07_tma_multicast/tensor_map.c
 * @brief Tensor maps through the runtime's driver entry point (see tensor_map.h).
 */
#include "tensor_map.h"

#include <stdio.h>
#include <string.h>

#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled_v12000 */
#include <cuda_runtime_api.h>

/* cuTensorMapEncodeTiled from the driver, looked up once. Asking for the
 * 12.0 version of the symbol pins the signature the typedef describes. */
static PFN_cuTensorMapEncodeTiled_v12000 encode_tiled(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    if (fn == NULL) {
        enum cudaDriverEntryPointQueryResult q;
        void *p = NULL;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) ==
                cudaSuccess &&
            q == cudaDriverEntryPointSuccess)
            memcpy(&fn, &p, sizeof fn); /* ISO C has no object-to-function pointer cast */
    }
    return fn;
}

/* Both element types go through here: FP32 (4 bytes) and BF16 (2). */
static int map_2d(CUtensorMap *map, CUtensorMapDataType type, size_t esize, const void *base, uint64_t rows,
                  uint64_t cols, uint64_t row_bytes, uint32_t box_rows, uint32_t box_cols, int swizzle, char *why,
                  size_t whylen)
{
    // [map_shape]
    const cuuint64_t dims[2] = {cols, rows}; /* innermost (contiguous) dimension first */
    const cuuint64_t strides[1] = {row_bytes};
    const cuuint32_t box[2] = {box_cols, box_rows};
    const cuuint32_t steps[2] = {1, 1};
    // [map_shape]
    PFN_cuTensorMapEncodeTiled_v12000 fn = encode_tiled();
    CUresult r;
    char dummy[8];
    if (why == NULL) {
        why = dummy;
        whylen = sizeof dummy;
    }
    if ((uintptr_t)base % 16 != 0) {
        snprintf(why, whylen, "the matrix does not start at a multiple of 16 bytes");
        return 1;
    }
    if (row_bytes % 16 != 0 || row_bytes < cols * esize) {
        snprintf(why, whylen, "its row stride (%llu bytes) is not a multiple of 16 bytes (a row of %llu %s)",
                 (unsigned long long)row_bytes, (unsigned long long)cols, esize == 4 ? "floats" : "BF16 values");
        return 1;
    }
    if (box_rows < 1 || box_rows > 256 || box_cols < 1 || box_cols > 256 || box_cols * esize % 16 != 0) {
        snprintf(why, whylen, "a box of %u x %u elements: each side must be 1..256 and a box row a multiple of 16 bytes",
                 box_rows, box_cols);
        return 1;
    }
    if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128) {
        snprintf(why, whylen, "no %d-byte swizzle (0, 32, 64 or 128)", swizzle);
        return 1;
    }
    if (swizzle && box_cols * esize > (size_t)swizzle) {
        snprintf(why, whylen, "a box row of %u bytes is wider than the %d-byte swizzle", (unsigned)(box_cols * esize),
                 swizzle);
        return 1;
    }
    if (fn == NULL) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled is not available from this driver");
        return 1;
    }
    // [encode]
    r = fn(map, type, 2, (void *)base, dims, strides, box, steps,
           CU_TENSOR_MAP_INTERLEAVE_NONE,
           swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
           : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
           : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                           : CU_TENSOR_MAP_SWIZZLE_NONE,
           CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    // [encode]
    if (r != CUDA_SUCCESS) {
        snprintf(why, whylen, "cuTensorMapEncodeTiled returned error %d", (int)r);
        return 1;
    }
    return 0;
}

int tma_map_2d(CUtensorMap *map, const float *base, uint64_t rows, uint64_t cols, uint64_t row_bytes,
               uint32_t box_rows, uint32_t box_cols, int swizzle, char *why, size_t whylen)
{
    return map_2d(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, sizeof(float), base, rows, cols, row_bytes, box_rows,
                  box_cols, swizzle, why, whylen);
}

// [pad]
cudaError_t tma_rows_aligned_bf16(const uint16_t **p, size_t *pitch, int rows, int cols, void **padded,
                                  cudaStream_t stream)
{
    const size_t bytes_per_row = (size_t)cols * sizeof(uint16_t);
    const size_t padded_pitch = ((size_t)cols + 7) / 8 * 8 * sizeof(uint16_t);
    cudaError_t err;
    *padded = NULL;
    *pitch = bytes_per_row;
    if (cols % 8 == 0 && (uintptr_t)*p % 16 == 0) return cudaSuccess;
    if ((err = cudaMallocAsync(padded, padded_pitch * rows, stream)) != cudaSuccess) return err;
    err = cudaMemcpy2DAsync(*padded, padded_pitch, *p, bytes_per_row, bytes_per_row, rows, cudaMemcpyDeviceToDevice,
                            stream);
    *p = (const uint16_t *)*padded;
    *pitch = padded_pitch;
    return err;
}
// [pad]

cudaError_t tma_padding_free(void *padded, cudaStream_t stream, cudaError_t err)
{
    const cudaError_t freed = padded != NULL ? cudaFreeAsync(padded, stream) : cudaSuccess;
    return err != cudaSuccess ? err : freed;
}

int tma_map_2d_bf16(CUtensorMap *map, const uint16_t *base, uint64_t rows, uint64_t cols, uint64_t row_bytes,
                    uint32_t box_rows, uint32_t box_cols, int swizzle, char *why, size_t whylen)
{
    return map_2d(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, sizeof(uint16_t), base, rows, cols, row_bytes, box_rows,
                  box_cols, swizzle, why, whylen);
}
