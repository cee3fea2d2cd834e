/**
 * @file 02_double_buffer/main.c
 * @brief Chapter 02: chapter 01's blocked GEMM against the same kernel with
 *        asynchronous, multi-stage tile loads, and cuBLAS.
 *
 * Build and run:   make chapter-02 && ./run          (from the top level)
 *                  make chapter-02 STAGES=3 && ./run (triple buffering)
 * Options:         ./run --help
 */
#include "../01_naive/kernel.h"
#include "../01_naive/kernel_tc.h"
#include "kernel.h"
#include "kernel_tc.h"

/** @brief Chapter 01's blocked kernel (the baseline), this chapter's kernel, then cuBLAS. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"blocked", launch_gemm_blocked, gemm_blocked_knobs},
        {"double_buffer", launch_gemm_double_buffer, gemm_double_buffer_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line: a build for sm_80 or later */
        {"blocked_tc", .launch_tc = launch_gemm_blocked_tc, .knobs = gemm_blocked_tc_knobs},
        {"double_buffer_tc", .launch_tc = launch_gemm_double_buffer_tc, .knobs = gemm_double_buffer_tc_knobs},
#endif
    };
    const gemm_chapter chapter = {
        .chapter = "02_double_buffer",
        .title = "Chapter 02: double buffering with the CUDA Pipeline API (cp.async)",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
