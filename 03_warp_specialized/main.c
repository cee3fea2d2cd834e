/**
 * @file 03_warp_specialized/main.c
 * @brief Chapter 03: chapter 02's pipelined GEMM against the same tiles
 *        moved by dedicated producer warps, and cuBLAS.
 *
 * Build and run:   make chapter-03 && ./run
 *                  make chapter-03 PRODUCER_WARPS=2 STAGES=3 && ./run
 * Options:         ./run --help
 */
#include "../02_double_buffer/kernel.h"
#include "../02_double_buffer/kernel_tc.h"
#include "kernel.h"
#include "kernel_tc.h"
#include "variants.h"

/** @brief Chapter 02's kernel (the baseline), this chapter's kernel and its storer variant, then cuBLAS. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"double_buffer", launch_gemm_double_buffer, gemm_double_buffer_knobs},
        {"warp_specialized", launch_gemm_warp_specialized, gemm_warp_specialized_knobs},
        /* variants.cu: a storer role beside them (it cannot pay here: see the page) */
        {"warp_specialized_storer", launch_gemm_warp_specialized_storer, gemm_warp_specialized_storer_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line: a build for sm_80 or later */
        {"double_buffer_tc", .launch_tc = launch_gemm_double_buffer_tc, .knobs = gemm_double_buffer_tc_knobs},
        {"warp_specialized_tc", .launch_tc = launch_gemm_warp_specialized_tc, .knobs = gemm_warp_specialized_tc_knobs},
#endif
    };
    const gemm_chapter chapter = {
        .chapter = "03_warp_specialized",
        .title = "Chapter 03: warp specialization (producer and consumer warps)",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
