/**
 * @file 04_persistent/main.c
 * @brief Chapter 04: 1,000 uneven tasks run one launch at a time, as a
 *        replayed CUDA Graph, as one batched launch and by a persistent
 *        kernel with an atomic work queue; tasks that create tasks, run a
 *        depth per launch and by a persistent queue; then chapter 03's GEMM
 *        against its persistent version, and cuBLAS.
 *
 * Build and run:   make chapter-04 && ./run
 *                  make chapter-04 GROUP=1 STORER_WARPS=4 PRODUCER_WARPS=4 && ./run
 *                  ./run --tasks 10000 --only tasks     the task queue only
 *                  ./run --skip-reset --only tasks      the counter pitfall: FAILED, exit 1
 *                  ./run --only spawn                   tasks that create tasks (demos/spawn.cu)
 * Options:         ./run --help
 */
#include "../03_warp_specialized/kernel.h"
#include "../03_warp_specialized/kernel_tc.h"
#include "kernel.h"
#include "kernel_tc.h"
#include "demos/spawn.h"
#include "demos/tasks.h"
#include "variants.h"

#include "../common/exit_codes.h"

/* The two queue demonstrations, each when --only selects it (or no --only). */
static int queue_demos(chapter_env *env)
{
    int rc = EXIT_VERIFIED, r;
    if (options_selects(&env->o, "tasks")) {
        r = tasks_demo(env);
        if (r != EXIT_VERIFIED) rc = r;
    }
    if (options_selects(&env->o, "spawn") && (rc == EXIT_VERIFIED || rc == EXIT_VERIFY_FAILED)) {
        r = spawn_demo(env);
        if (r != EXIT_VERIFIED) rc = r;
    }
    return rc;
}

/** @brief The task demonstration, then chapter 03's kernel, this chapter's kernel and its variants, and cuBLAS. */
int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"warp_specialized", launch_gemm_warp_specialized, gemm_warp_specialized_knobs},
        {"persistent", launch_gemm_persistent, gemm_persistent_knobs},
        /* variants.cu: an epilogue that loads, and storer warps (see the page) */
        {"persistent_residual", launch_gemm_persistent_residual, gemm_persistent_residual_knobs},
        {"persistent_storer", launch_gemm_persistent_storer, gemm_persistent_storer_knobs},
        {"persistent_storer_residual", launch_gemm_persistent_storer_residual, gemm_persistent_storer_knobs},
        /* pingpong.cu: two consumer groups taking tiles in turn */
        {"persistent_pingpong", launch_gemm_persistent_pingpong, gemm_persistent_pingpong_knobs},
#ifdef TUTORIAL_TC /* the tensor-core line: a build for sm_80 or later */
        {"warp_specialized_tc", .launch_tc = launch_gemm_warp_specialized_tc, .knobs = gemm_warp_specialized_tc_knobs},
        {"persistent_tc", .launch_tc = launch_gemm_persistent_tc, .knobs = gemm_persistent_tc_knobs},
        /* static_tc.cu: the same in a fixed order, chapter 06's parent */
        {"persistent_static_tc", .launch_tc = launch_gemm_persistent_static_tc, .knobs = gemm_persistent_static_tc_knobs},
#endif
    };
    option_extra extras[] = {
        {"tasks", "number of tasks in the task-queue demonstration", 1, 100000, 1000},
        {"skip-reset", "do not reset the persistent kernel's task counter (shows the pitfall)", 0, 0, 0},
        {"spawn-roots", "roots of the tasks-that-create-tasks tree", 1, 1000000, 64},
        {"spawn-depth", "depth at which its nodes stop having children (the bound a launch per depth needs)", 0, 100000, 10000},
    };
    const gemm_chapter chapter = {
        .chapter = "04_persistent",
        .title = "Chapter 04: persistent kernels and work queues",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
        .extras = extras,
        .nextras = COUNT_OF(extras),
        .demo = queue_demos, /* run first, as --only tasks and --only spawn */
        .demo_name = "tasks spawn",
        .tc_line = 1,
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
