/**
 * @file 02_double_buffer/kernel.h
 * @brief Launcher of chapter 02's pipelined GEMM (C = A * B, row-major FP32).
 */
#ifndef CH02_KERNEL_H
#define CH02_KERNEL_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Chapter 01's blocked GEMM with its tile loads made asynchronous (a STAGES-deep ring). */
cudaError_t launch_gemm_double_buffer(int M, int N, int K, const float *A, const float *B,
                                      float *C, cudaStream_t stream);

extern const char gemm_double_buffer_knobs[]; /**< "BM=... BK=... STAGES=..." */

#ifdef __cplusplus
}
#endif

#endif
