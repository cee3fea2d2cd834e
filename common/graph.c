/**
 * @file common/graph.c
 * @brief Stream capture into a CUDA Graph (see graph.h).
 */
#define _POSIX_C_SOURCE 200809L /**< for clock_gettime() */
#include "graph.h"

#include <time.h>

#include "check.h"

// [capture]
cudaGraphExec_t graph_capture(run_fn fn, void *arg, double *ms)
{
    cudaStream_t cs;
    cudaGraph_t g;
    cudaGraphExec_t exec;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Capture records the launches fn makes on cs instead of running them. */
    CUDA_CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamBeginCapture(cs, cudaStreamCaptureModeThreadLocal));
    CUDA_CHECK(fn(arg, cs));
    CUDA_CHECK(cudaStreamEndCapture(cs, &g));
    CUDA_CHECK(cudaGraphInstantiate(&exec, g, 0));
    CUDA_CHECK(cudaGraphDestroy(g));
    CUDA_CHECK(cudaStreamDestroy(cs));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-6;
    return exec;
}
// [capture]

cudaError_t graph_run(void *graph_exec, cudaStream_t stream)
{
    return cudaGraphLaunch(*(cudaGraphExec_t *)graph_exec, stream);
}
