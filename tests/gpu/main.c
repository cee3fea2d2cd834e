/**
 * @file tests/gpu/main.c
 * @brief The planted-fault kernels behind the same driver the chapters use.
 *        Run one with --only NAME; see tests/run.sh for what each must do.
 */
#include "../../common/gemm_driver.h"

#define DECLARE(name)                                                                     \
    cudaError_t launch_##name(int M, int N, int K, const float *A, const float *B, float *C, \
                              cudaStream_t s);
DECLARE(tile_bound)
DECLARE(unwritten)
DECLARE(one_nan)
DECLARE(race)
DECLARE(hang)
#ifdef TUTORIAL_TC
cudaError_t launch_tc_unswizzled(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C, cudaStream_t s);
cudaError_t launch_tc_k_tail(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C, cudaStream_t s);
cudaError_t launch_tc_stale_acc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C, cudaStream_t s);
#endif

int main(int argc, char **argv)
{
    const gemm_kernel kernels[] = {
        {"tile_bound", launch_tile_bound, "K-tile bound off by one"},
        {"unwritten", launch_unwritten, "last column never stored"},
        {"one_nan", launch_one_nan, "one element NaN"},
        {"race", launch_race, "second __syncthreads() missing"},
        {"hang", launch_hang, "waits for a flag nobody sets"},
#ifdef TUTORIAL_TC /* the tensor-core line (sm_90a): chapter 01's blocked_tc with a fault */
        {"tc_unswizzled", .launch_tc = launch_tc_unswizzled, .knobs = "A tile stored unswizzled"},
        {"tc_k_tail", .launch_tc = launch_tc_k_tail, .knobs = "last partial K tile dropped"},
        {"tc_stale_acc", .launch_tc = launch_tc_stale_acc, .knobs = "persistent, accumulators not zeroed per tile"},
#endif
    };
    const gemm_chapter chapter = {
        .chapter = "mutants",
        .title = "Planted-fault kernels (each must be caught)",
        .kernels = kernels,
        .count = COUNT_OF(kernels),
    };
    return gemm_chapter_main(argc, argv, &chapter);
}
