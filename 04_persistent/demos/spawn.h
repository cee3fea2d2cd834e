/**
 * @file 04_persistent/demos/spawn.h
 * @brief Chapter 04's second queue demonstration: tasks that create tasks,
 *        so the work is not known at launch. Each task is a node of a
 *        random tree (its children follow from its key); the ways to run
 *        it (spawn.cu) and the demo driver (spawn_demo.c).
 */
#ifndef CH04_SPAWN_H
#define CH04_SPAWN_H

#include <cuda_runtime_api.h>

#include "../../common/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tree's rules, the same on the host (which builds the expected
 * results) and on the device. */
#ifdef __CUDACC__
#define SPAWN_FN static __host__ __device__ __forceinline__ /**< a rule both the host and the device call */
#else
#define SPAWN_FN static inline /**< a rule both the host and the device call */
#endif

/** @brief A 64-bit mixing function (splitmix64's finalizer): keys to keys. */
SPAWN_FN unsigned long long spawn_mix(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/** @brief Children of a node: 0 (1 in 4), 1 (2 in 4) or 2 (1 in 4), none at @p max_depth; one on average. */
SPAWN_FN int spawn_children(unsigned long long key, int depth, int max_depth)
{
    const int r = (int)(spawn_mix(key ^ 0x5bd1e995ull) & 3u);
    return depth >= max_depth ? 0 : r == 0 ? 0 : r == 3 ? 2 : 1;
}

/** @brief The key of child @p j. */
SPAWN_FN unsigned long long spawn_child_key(unsigned long long key, int j)
{
    return spawn_mix(key * 2u + 1u + (unsigned)j);
}

/** @brief A task's work: 32 to 511 rounds of mixing, decided by its key (so tasks differ up to 16x). */
SPAWN_FN unsigned long long spawn_work(unsigned long long key)
{
    const int rounds = 32 + (int)(spawn_mix(key + 7u) % 480u);
    unsigned long long h = key;
    int i;
    for (i = 0; i < rounds; ++i) h = spawn_mix(h);
    return h;
}

/** @brief A task: one node of the tree. */
typedef struct {
    unsigned long long key; /**< decides the node's work and children */
    int depth;              /**< 0 for a root */
    int pad;                /**< (keeps the struct 16 bytes) */
} spawn_node;

/** @brief What a task leaves: its key and the result of its work. */
typedef struct {
    unsigned long long key;    /**< the node's key */
    unsigned long long result; /**< spawn_work() of it */
} spawn_out;

/** @brief The queue's counters (device memory; reset before every run). */
typedef struct {
    int head;    /**< next ticket to hand out */
    int tail;    /**< next free slot */
    int pending; /**< tasks queued or running: 0 means all work is done */
    int overflow; /**< set if a task found no free slot */
} spawn_counters;

/** @brief Everything a run needs (device pointers). */
typedef struct {
    const spawn_node *roots; /**< the roots */
    int nroots;              /**< how many */
    int max_depth;           /**< nodes at this depth have no children */
    int capacity;            /**< slots for nodes (the tree's size, or more) */
    spawn_node *nodes;       /**< queue: capacity slots (roots first); levels: two buffers of capacity */
    int *ready;              /**< queue: a flag per slot, capacity + workers of them */
    spawn_counters *counters; /**< queue: the counters */
    int *level_count;        /**< levels: nodes per depth, max_depth + 2 of them */
    int *level_count_host;   /**< levels with host round trips: pinned, one int */
    spawn_out *out;          /**< one entry per task run, in any order */
    int *out_count;          /**< how many */
    int grid;                /**< blocks of the queue kernel and of each level kernel */
} spawn_args;

/** @brief The queue: one persistent launch; tasks push their children while it runs. */
cudaError_t launch_spawn_queue(const spawn_args *a, cudaStream_t stream);
/** @brief One launch per depth; the host reads each depth's size before the next. */
cudaError_t launch_spawn_levels_host(const spawn_args *a, cudaStream_t stream);
/** @brief One launch per possible depth (max_depth + 1), no host round trip (capturable as a graph). */
cudaError_t launch_spawn_levels_device(const spawn_args *a, cudaStream_t stream);
/** @brief The grid of the queue kernel and of the level kernels: one block per SM. */
cudaError_t spawn_queue_grid(int *blocks);
/** @brief Threads per block of every spawn kernel. */
int spawn_threads(void);

/** @brief The demonstration: verify and time every way; returns an exit code. */
int spawn_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
