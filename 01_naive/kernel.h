/**
 * @file 01_naive/kernel.h
 * @brief Launcher of chapter 01's lesson kernel, the register-blocked GEMM
 *        (C = A * B, row-major FP32).
 *
 * Later chapters include this header to run chapter 01's blocked kernel as
 * their baseline, so "previous" is literally the code studied here.
 */
#ifndef CH01_KERNEL_H
#define CH01_KERNEL_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Shared-memory tiles + register blocking + 16-byte loads; the baseline of chapter 02. */
cudaError_t launch_gemm_blocked(int M, int N, int K, const float *A, const float *B, float *C,
                                cudaStream_t stream);

extern const char gemm_blocked_knobs[]; /**< "BM=... BN=... BK=... TM=8 TN=8 ..." */

#ifdef __cplusplus
}
#endif

#endif
