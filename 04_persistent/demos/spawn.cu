/**
 * @file 04_persistent/demos/spawn.cu
 * @brief Tasks that create tasks: a random tree walked three ways. A
 *        persistent kernel whose threads take tasks from a queue in global
 *        memory and push their children into it while it runs; against
 *        one launch per depth of the tree, with the host reading each
 *        depth's size, or with as many launches as the tree could be deep
 *        and no host round trip (the best a launch can do when the work is
 *        not known in advance).
 *
 * Every thread is a worker; a task is one node: spawn_work() of its key,
 * recorded in out[], then 0, 1 or 2 children (spawn.h).
 */
#include <cuda/atomic>
#include <cuda_runtime.h>

#include "spawn.h"

#define SPAWN_THREADS 128 /**< threads per block of every kernel here */

typedef cuda::atomic_ref<int, cuda::thread_scope_device> dev_int; /**< an int in global memory, as an atomic */

/** @brief Run one task: record its result in the next free entry of out[]. */
__device__ __forceinline__ void spawn_run(const spawn_args &a, spawn_node n)
{
    const int o = atomicAdd(a.out_count, 1);
    a.out[o].key = n.key;
    a.out[o].result = spawn_work(n.key);
}

/** @brief Before every run: the counters, the ready flags (roots only), the first level. */
__global__ void __launch_bounds__(SPAWN_THREADS) spawn_reset(spawn_args a, int workers)
{
    const int i0 = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    for (int i = i0; i < a.capacity + workers; i += stride) a.ready[i] = i < a.nroots;
    for (int i = i0; i < a.nroots; i += stride) a.nodes[i] = a.roots[i];
    for (int i = i0; i < a.max_depth + 2; i += stride) a.level_count[i] = i == 0 ? a.nroots : 0;
    if (i0 == 0) {
        a.counters->head = 0;
        a.counters->tail = a.nroots;
        a.counters->pending = a.nroots;
        a.counters->overflow = 0;
        *a.out_count = 0;
    }
}

/**
 * @brief The queue. A worker takes a ticket (the next slot), waits until
 *        that slot holds a task or the work has run out, runs the task and
 *        pushes its children into new slots.
 *
 * `pending` counts tasks queued or running. A child is counted before its
 * parent is uncounted, so it reaches 0 only when no task can create more
 * work: then every waiting worker returns (the shutdown). A slot is
 * published by a release store of its flag after the node is written;
 * the taker reads the flag with acquire before the node.
 */
// [queue]
__global__ void __launch_bounds__(SPAWN_THREADS) spawn_queue(spawn_args a)
{
    dev_int head(a.counters->head), tail(a.counters->tail), pending(a.counters->pending);
    for (;;) {
        const int t = head.fetch_add(1, cuda::memory_order_relaxed);
        dev_int ready(a.ready[t]);
        /* An idle worker polls with a growing pause: polling at full speed
         * takes issue slots and L2 bandwidth from the workers with tasks. */
        for (unsigned pause = 32; !ready.load(cuda::memory_order_acquire); pause = pause < 2048 ? 2 * pause : pause) {
            if (pending.load(cuda::memory_order_acquire) == 0) return; /* no task left anywhere */
            __nanosleep(pause);
        }
        const spawn_node n = a.nodes[t];
        spawn_run(a, n);
        const int kids = spawn_children(n.key, n.depth, a.max_depth);
        for (int j = 0; j < kids; ++j) {
            pending.fetch_add(1, cuda::memory_order_relaxed); /* before this task is uncounted */
            const int s = tail.fetch_add(1, cuda::memory_order_relaxed);
            if (s >= a.capacity) { /* no room: record it, drop the child */
                atomicExch(&a.counters->overflow, 1);
                pending.fetch_sub(1, cuda::memory_order_relaxed);
                continue;
            }
            a.nodes[s] = spawn_node{spawn_child_key(n.key, j), n.depth + 1, 0};
            dev_int(a.ready[s]).store(1, cuda::memory_order_release); /* the node is written */
        }
        pending.fetch_sub(1, cuda::memory_order_release); /* this task is done */
    }
}
// [queue]

/** @brief Depth @p d: run its nodes (buffer d % 2) and append their children to depth d + 1's buffer. */
// [level]
__global__ void __launch_bounds__(SPAWN_THREADS) spawn_level(spawn_args a, int d)
{
    const int n = a.level_count[d]; /* written by the launch before this one */
    const spawn_node *cur = a.nodes + (size_t)(d & 1) * a.capacity;
    spawn_node *next = a.nodes + (size_t)((d + 1) & 1) * a.capacity;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const spawn_node node = cur[i];
        spawn_run(a, node);
        const int kids = spawn_children(node.key, node.depth, a.max_depth);
        for (int j = 0; j < kids; ++j) {
            const int s = atomicAdd(&a.level_count[d + 1], 1);
            if (s >= a.capacity) {
                atomicExch(&a.counters->overflow, 1);
                continue;
            }
            next[s] = spawn_node{spawn_child_key(node.key, j), node.depth + 1, 0};
        }
    }
}
// [level]

extern "C" int spawn_threads(void)
{
    return SPAWN_THREADS;
}

extern "C" cudaError_t spawn_queue_grid(int *blocks)
{
    int dev, sms;
    cudaError_t err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return err;
    /* One block of workers per SM: a worker with no task only polls, and
     * the pollers take issue slots and L2 bandwidth from the others. */
    *blocks = sms;
    return cudaSuccess;
}

static cudaError_t reset(const spawn_args *a, cudaStream_t stream)
{
    spawn_reset<<<64, SPAWN_THREADS, 0, stream>>>(*a, a->grid * SPAWN_THREADS);
    return cudaGetLastError();
}

// [queue_launch]
extern "C" cudaError_t launch_spawn_queue(const spawn_args *a, cudaStream_t stream)
{
    cudaError_t err = reset(a, stream);
    if (err != cudaSuccess) return err;
    /* The grid need not fit at once: a worker that has not started holds no
     * ticket, so nobody waits for it. */
    spawn_queue<<<a->grid, SPAWN_THREADS, 0, stream>>>(*a);
    return cudaGetLastError();
}
// [queue_launch]

extern "C" cudaError_t launch_spawn_levels_host(const spawn_args *a, cudaStream_t stream)
{
    cudaError_t err = reset(a, stream);
    int n = a->nroots, d;
    for (d = 0; err == cudaSuccess && n > 0 && d <= a->max_depth; ++d) {
        const int blocks = (n + SPAWN_THREADS - 1) / SPAWN_THREADS;
        spawn_level<<<blocks < a->grid ? blocks : a->grid, SPAWN_THREADS, 0, stream>>>(*a, d);
        /* the host needs the next depth's size to size (or skip) the next launch */
        if ((err = cudaMemcpyAsync(a->level_count_host, &a->level_count[d + 1], sizeof(int), cudaMemcpyDeviceToHost,
                                   stream)) != cudaSuccess ||
            (err = cudaStreamSynchronize(stream)) != cudaSuccess)
            break;
        n = *a->level_count_host;
    }
    return err != cudaSuccess ? err : cudaGetLastError();
}

extern "C" cudaError_t launch_spawn_levels_device(const spawn_args *a, cudaStream_t stream)
{
    cudaError_t err = reset(a, stream);
    for (int d = 0; err == cudaSuccess && d <= a->max_depth; ++d) {
        spawn_level<<<a->grid, SPAWN_THREADS, 0, stream>>>(*a, d);
        err = cudaGetLastError();
    }
    return err;
}
