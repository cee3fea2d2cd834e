/**
 * @file 03_warp_specialized/variants.h
 * @brief Launcher of chapter 03's measured alternative (variants.cu): the
 *        warp-specialized GEMM with storer warps.
 */
#ifndef CH03_VARIANTS_H
#define CH03_VARIANTS_H

#include "../common/gemm_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Producers, consumers and STORER_WARPS warps that write C from a staged tile. */
cudaError_t launch_gemm_warp_specialized_storer(int M, int N, int K, const float *A, const float *B,
                                                float *C, cudaStream_t stream);

extern const char gemm_warp_specialized_storer_knobs[]; /**< "... STORER_WARPS=..." */

#ifdef __cplusplus
}
#endif

#endif
