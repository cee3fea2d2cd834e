/**
 * @file common/graph.h
 * @brief Capturing a sequence of launches into a CUDA Graph and replaying
 *        it, for timing: the launch-side baseline that chapter 04 measures
 *        its persistent kernels against and chapter 05 its grid barrier.
 */
#ifndef TUTORIAL_GRAPH_H
#define TUTORIAL_GRAPH_H

#include <cuda_runtime_api.h>

#include "runner.h"

/**
 * @brief Capture what @p fn enqueues into a CUDA Graph (on a stream of its
 *        own) and instantiate it; replaying it is then one cudaGraphLaunch().
 * @param fn, arg  the work, as for time_runs()
 * @param ms  receives the host time capture and instantiation took
 */
cudaGraphExec_t graph_capture(run_fn fn, void *arg, double *ms);

/** @brief Replay the graph at @p graph_exec (a cudaGraphExec_t *) in @p stream: a run_fn for time_runs(). */
cudaError_t graph_run(void *graph_exec, cudaStream_t stream);

#endif
