/**
 * @file 04_persistent/demos/tasks.h
 * @brief Chapter 04's task-queue demonstration: the task layout, the four
 *        ways to run the tasks (tasks.cu) and the demo driver (tasks_demo.c).
 */
#ifndef CH04_TASKS_H
#define CH04_TASKS_H

#include <cuda_runtime_api.h>

#include "../../common/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One task: a segment of the input vector. */
typedef struct {
    int offset; /**< first element */
    int length; /**< number of elements */
} task_segment;

/** @brief Everything a launch of the tasks needs (device pointers). */
typedef struct {
    const task_segment *tasks; /**< ntasks segments */
    int ntasks;                /**< number of tasks */
    const float *x;            /**< input vector */
    float *y;                  /**< output: each segment scaled to unit norm */
    float *norms;              /**< output: each segment's norm */
    int *next;                 /**< the persistent kernel's task counter */
    int grid;                  /**< blocks of the persistent kernel */
    int skip_reset;            /**< 1: do not reset the counter (the pitfall, on purpose) */
} task_args;

/** @brief Threads per task (the TASK_THREADS knob). */
int task_threads(void);
/** @brief One launch of a one-block kernel per task, in order. */
cudaError_t launch_tasks_one_by_one(const task_args *a, cudaStream_t stream);
/** @brief One launch, one block per task. */
cudaError_t launch_tasks_batched(const task_args *a, cudaStream_t stream);
/** @brief Reset the counter, then one launch of the persistent kernel on a->grid blocks. */
cudaError_t launch_tasks_persistent(const task_args *a, cudaStream_t stream);
/** @brief The persistent kernel's grid: resident blocks per SM (occupancy API) x SMs. */
cudaError_t persistent_task_grid(int *blocks);
/** @brief @p count launches of an empty kernel: the launch cost alone. */
cudaError_t launch_empty_kernels(int count, cudaStream_t stream);

/** @brief The demonstration: verify and time every way; returns an exit code. */
int tasks_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
