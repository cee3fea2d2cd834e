/**
 * @file 06_clusters_dsmem/main.c
 * @brief Chapter 06: thread block clusters and distributed shared memory.
 *        First the cluster demonstrations (launching clusters, occupancy,
 *        a DSMEM reduction, DSMEM against global memory for block-to-block
 *        exchange), then chapter 03's and 04's GEMMs against this chapter's
 *        cluster GEMM and its variant, and cuBLAS.
 *
 * Build and run:   make chapter-06 && ./run
 *                  make chapter-06 CLUSTER=4 && ./run     four blocks share each A tile
 *                  ./run --only clusters                  the demonstrations only
 * Needs:           a Hopper GPU (compute capability 9.0) and a build for it (sm_90a).
 * Options:         ./run --help
 */
#include "../03_warp_specialized/kernel.h"
#include "../04_persistent/kernel.h"
#include "../04_persistent/kernel_tc.h"
#include "kernel.h"
#include "kernel_tc.h"
#include "variants.h"

/** @brief The cluster demonstrations, then chapters 03, 04 and 06's GEMMs and cuBLAS. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"warp_specialized", launch_gemm_warp_specialized, gemm_warp_specialized_knobs},
        {"persistent", launch_gemm_persistent, gemm_persistent_knobs},
        {"cluster", launch_gemm_cluster, gemm_cluster_knobs},
        /* variants.cu: the A parts shared through registers and DSMEM stores (see the page) */
        {"cluster_registers", launch_gemm_cluster_registers, gemm_cluster_registers_knobs},
        /* variants.cu: the same, with the consumers' releases fenced at cluster scope */
        {"cluster_fenced", launch_gemm_cluster_fenced, gemm_cluster_fenced_knobs},
        /* variants.cu: the book's "leader loads, followers read through DSMEM" */
        {"cluster_leader", launch_gemm_cluster_leader, gemm_cluster_leader_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line */
        {"persistent_static_tc", .launch_tc = launch_gemm_persistent_static_tc, .knobs = gemm_persistent_static_tc_knobs},
        /* mbarrier_tc.cu: the step between, its stages handed over through mbarriers */
        {"mbarrier_tc", .launch_tc = launch_gemm_mbarrier_tc, .knobs = gemm_mbarrier_tc_knobs},
        {"cluster_tc", .launch_tc = launch_gemm_cluster_tc, .knobs = gemm_cluster_tc_knobs},
#endif
    };
    option_extra extras[] = {
        {"elements", "ints summed by the reduction demonstration", 1, 1L << 28, 1L << 24},
        {"rounds", "rounds of the block-to-block exchange", 1, 1000000, 1000},
        {"pings", "round trips of the ping-pong", 1, 10000000, 10000},
        {"bad-cluster-grid", "launch 6 blocks in clusters of 4 (the pitfall: refused, exit 4)", 0, 0, 0},
        {"divergent-cluster-sync", "a warp skips a cluster.sync() in the exchange: the deadlock, caught by the watchdog", 0, 0, 0},
    };
    const gemm_chapter chapter = {
        .chapter = "06_clusters_dsmem",
        .title = "Chapter 06: thread block clusters and distributed shared memory",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .extras = extras,
        .nextras = COUNT_OF(extras),
        .demo = cluster_demo, /* runs first, as --only clusters */
        .demo_name = "clusters",
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
