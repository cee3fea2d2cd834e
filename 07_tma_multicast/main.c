/**
 * @file 07_tma_multicast/main.c
 * @brief Chapter 07: the Tensor Memory Accelerator. Chapter 06's cluster
 *        GEMM against the TMA GEMM without and with multicast, three
 *        variants with chapter 06's 128 x 128 block, and cuBLAS.
 *
 * Build and run:   make chapter-07 && ./run
 *                  make chapter-07 CLUSTER_M=2 CLUSTER_N=2 && ./run   multicast A and B
 *                  ./run --n 1001         an N that needs B padded as well as A transposed
 * Needs:           a Hopper GPU (compute capability 9.0) and a build for it (sm_90a).
 * Options:         ./run --help
 */
#include "../06_clusters_dsmem/kernel.h"
#include "../06_clusters_dsmem/kernel_tc.h"
#include "kernel.h"
#include "kernel_tc.h"
#include "variants.h"

/** @brief Chapter 06's GEMM, the two TMA GEMMs, the 128 x 128 variants and cuBLAS. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"cluster", launch_gemm_cluster, gemm_cluster_knobs},
        {"tma", launch_gemm_tma, gemm_tma_knobs},
        {"tma_multicast", launch_gemm_tma_multicast, gemm_tma_multicast_knobs},
        /* variants.cu: the same ring with chapter 06's 128 x 128 block (see the page) */
        {"tma128_swizzled", launch_gemm_tma128_swizzled, gemm_tma128_swizzled_knobs},
        {"tma128_transposed", launch_gemm_tma128_transposed, gemm_tma128_transposed_knobs},
        {"tma128_fenced", launch_gemm_tma128_fenced, gemm_tma128_fenced_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line: a build for sm_80 or later */
        {"cluster_tc", .launch_tc = launch_gemm_cluster_tc, .knobs = gemm_cluster_tc_knobs},
        {"tma_multicast_tc", .launch_tc = launch_gemm_tma_multicast_tc, .knobs = gemm_tma_multicast_tc_knobs},
        /* store_tc.cu: the lesson with C stored by TMA, the step after it */
        {"tma_store_tc", .launch_tc = launch_gemm_tma_store_tc, .knobs = gemm_tma_store_tc_knobs},
#endif
    };
    const gemm_chapter chapter = {
        .chapter = "07_tma_multicast",
        .title = "Chapter 07: the Tensor Memory Accelerator and multicast",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .demo = staging_demo, /* runs first, as --only staging */
        .demo_name = "staging",
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
