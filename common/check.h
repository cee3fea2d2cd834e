/**
 * @file check.h
 * @brief Checked CUDA and cuBLAS calls. A failure prints file, line, the call
 *        and the library's message, then exits with ::EXIT_CUDA_ERROR.
 *
 * Kernel launches are asynchronous: a bad launch configuration is reported
 * by cudaGetLastError() right after the launch, a fault inside the kernel only
 * at the next synchronizing call. The launchers therefore return
 * cudaGetLastError(), and the harness checks the synchronizing call that
 * follows (common/gemm_driver.c, common/runner.c).
 */
#ifndef TUTORIAL_CHECK_H
#define TUTORIAL_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>

#include "exit_codes.h"

/** @brief Evaluate a CUDA runtime call; on failure report it and exit 4. */
#define CUDA_CHECK(call)                                                      \
    do {                                                                      \
        cudaError_t err_ = (call);                                            \
        if (err_ != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error at %s:%d\n  call: %s\n  error: %s (%s)\n", \
                    __FILE__, __LINE__, #call, cudaGetErrorString(err_),      \
                    cudaGetErrorName(err_));                                  \
            exit(EXIT_CUDA_ERROR);                                            \
        }                                                                     \
    } while (0)

/** @brief Evaluate a cuBLAS call; on failure report it and exit 4. */
#define CUBLAS_CHECK(call)                                                    \
    do {                                                                      \
        cublasStatus_t st_ = (call);                                          \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                   \
            fprintf(stderr, "cuBLAS error at %s:%d\n  call: %s\n  error: %s (%s)\n", \
                    __FILE__, __LINE__, #call, cublasGetStatusString(st_),    \
                    cublasGetStatusName(st_));                                \
            exit(EXIT_CUDA_ERROR);                                            \
        }                                                                     \
    } while (0)

#endif
