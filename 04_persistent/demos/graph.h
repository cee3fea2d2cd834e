/**
 * @file 04_persistent/demos/graph.h
 * @brief Capturing a sequence of launches into a CUDA Graph, the
 *        launch-side alternative to a persistent kernel that this chapter
 *        measures it against (chapter 05 uses it again for its phases).
 */
#ifndef CH04_GRAPH_H
#define CH04_GRAPH_H

#include <cuda_runtime_api.h>

#include "../../common/runner.h"

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
