/**
 * @file 04_persistent/demos/tasks.cu
 * @brief Chapter 04, first demonstration: many small, uneven tasks run four
 *        ways - one launch per task, those launches replayed as a CUDA
 *        Graph, one launch with one block per task, and a persistent kernel
 *        whose blocks pull task indices from an atomic counter.
 *
 * Every way runs the same task body, normalize_segment(): one block scales
 * one segment of a vector to unit L2 norm (a sum of squares, then a
 * scaling pass). Segments differ in length by up to 32x, so the tasks take
 * very different times.
 */
#include <cuda_runtime.h>

#include "tasks.h"

#include "../../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#ifndef TASK_THREADS
#define TASK_THREADS 256 /**< threads per task (one block) */
#endif

/** @brief Sum of @p v over the block; every thread gets the total. */
__device__ float block_sum(float v)
{
    __shared__ float partial[TASK_THREADS / 32];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    v = 0.0f;
    for (int w = 0; w < TASK_THREADS / 32; ++w) v += partial[w];
    __syncthreads(); /* partial is reused by the next call */
    return v;
}

/**
 * @brief The task body: y = x / ||x|| on segment @p t; norms[t] = ||x||.
 *        Called by a whole block.
 */
// [task]
__device__ void normalize_segment(const task_segment *tasks, int t, const float *__restrict__ x,
                                  float *__restrict__ y, float *__restrict__ norms)
{
    const int off = tasks[t].offset, len = tasks[t].length;
    float ss = 0.0f;
    for (int i = threadIdx.x; i < len; i += TASK_THREADS) ss = fmaf(x[off + i], x[off + i], ss);
    const float norm = sqrtf(block_sum(ss));
    const float inv = norm > 0.0f ? 1.0f / norm : 0.0f;
    for (int i = threadIdx.x; i < len; i += TASK_THREADS) y[off + i] = x[off + i] * inv;
    if (threadIdx.x == 0) norms[t] = norm;
}
// [task]

/** @brief One task per launch: the task index is a kernel argument. */
__global__ void __launch_bounds__(TASK_THREADS)
task_single(const task_segment *tasks, int t, const float *x, float *y, float *norms)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    TRACE_BEGIN(t_task);
    normalize_segment(tasks, t, x, y, norms);
    TRACE_END(t_task, TRACE_TASK, t);
}

/** @brief One launch, one block per task: the hardware hands out the blocks. */
__global__ void __launch_bounds__(TASK_THREADS)
task_batched(const task_segment *tasks, const float *x, float *y, float *norms)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    TRACE_BEGIN(t_task);
    normalize_segment(tasks, blockIdx.x, x, y, norms);
    TRACE_END(t_task, TRACE_TASK, blockIdx.x);
}

/**
 * @brief Persistent: a grid of resident blocks, each taking the next task
 *        index from @p next until none are left.
 */
// [persistent]
__global__ void __launch_bounds__(TASK_THREADS)
task_persistent(const task_segment *tasks, int ntasks, const float *x, float *y, float *norms,
                int *next)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    __shared__ int s_task;
    for (;;) {
        /* One atomic per block per task, not one per thread: the other
         * threads get the index through shared memory. */
        TRACE_BEGIN(t_fetch);
        if (threadIdx.x == 0) s_task = atomicAdd(next, 1);
        __syncthreads();
        const int t = s_task;
        __syncthreads(); /* everyone has read s_task before thread 0 writes it again */
        TRACE_END(t_fetch, TRACE_FETCH, t);
        if (t >= ntasks) break;
        TRACE_BEGIN(t_task);
        normalize_segment(tasks, t, x, y, norms);
        TRACE_END(t_task, TRACE_TASK, t);
    }
}
// [persistent]

/** @brief An empty kernel: what a launch costs when there is no work at all. */
__global__ void empty_kernel(void) {}

extern "C" int task_threads(void)
{
    return TASK_THREADS;
}

extern "C" cudaError_t launch_tasks_one_by_one(const task_args *a, cudaStream_t stream)
{
    for (int t = 0; t < a->ntasks; ++t) {
        task_single<<<1, TASK_THREADS, 0, stream>>>(a->tasks, t, a->x, a->y, a->norms);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

extern "C" cudaError_t launch_tasks_batched(const task_args *a, cudaStream_t stream)
{
    task_batched<<<a->ntasks, TASK_THREADS, 0, stream>>>(a->tasks, a->x, a->y, a->norms);
    return cudaGetLastError();
}

extern "C" cudaError_t persistent_task_grid(int *blocks)
{
    int dev, sms, per_sm;
    cudaError_t err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, task_persistent, TASK_THREADS,
                                                             0)) != cudaSuccess)
        return err;
    *blocks = per_sm * sms;
    return cudaSuccess;
}

// [persistent_launch]
extern "C" cudaError_t launch_tasks_persistent(const task_args *a, cudaStream_t stream)
{
    /* The queue starts at task 0 on every launch. The counter is ordinary
     * device memory, reset in the launch's stream; a __device__ variable
     * would be reset with cudaMemcpyToSymbolAsync instead (cudaMemset on
     * its address, as in the book, is not valid). */
    if (!a->skip_reset) {
        const cudaError_t err = cudaMemsetAsync(a->next, 0, sizeof(int), stream);
        if (err != cudaSuccess) return err;
    }
    task_persistent<<<a->grid, TASK_THREADS, 0, stream>>>(a->tasks, a->ntasks, a->x, a->y,
                                                          a->norms, a->next);
    return cudaGetLastError();
}
// [persistent_launch]

extern "C" cudaError_t launch_empty_kernels(int count, cudaStream_t stream)
{
    for (int i = 0; i < count; ++i) {
        empty_kernel<<<1, 32, 0, stream>>>();
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}
