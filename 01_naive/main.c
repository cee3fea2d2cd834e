/**
 * @file 01_naive/main.c
 * @brief Chapter 01: this GPU's instruction ceilings (demos/ceiling.cu);
 *        then verify and time the naive and tiled GEMMs (variants.cu) and
 *        the lesson kernel, the blocked GEMM (kernel.cu), against cuBLAS;
 *        from sm_80 on also blocked_tc (kernel_tc.cu), the same rhythm on
 *        the tensor cores, against cuBLAS BF16.
 *
 * Build and run:   make chapter-01 && ./run          (from the top level)
 *                  cd 01_naive && make && ./run      (from here)
 *                  ./run --only ceiling              the ceilings alone (make ceiling)
 * Options:         ./run --help
 */
#include "kernel.h"
#include "kernel_tc.h"
#include "variants.h"
#include "demos/ceiling.h"

/** @brief List the chapter's kernels in teaching order and hand them to the shared driver. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"naive", launch_gemm_naive, gemm_naive_knobs},
        {"tiled", launch_gemm_tiled, gemm_tiled_knobs},
        {"blocked", launch_gemm_blocked, gemm_blocked_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line: a build for sm_80 or later */
        {"blocked_tc", .launch_tc = launch_gemm_blocked_tc, .knobs = gemm_blocked_tc_knobs},
#endif
    };
    const gemm_chapter chapter = {
        .chapter = "01_naive",
        .title = "Chapter 01: naive, tiled and register-blocked GEMM (synchronous loads)",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .demo = ceiling_demo, /* first: the instruction ceilings (--only ceiling) */
        .demo_name = "ceiling",
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
