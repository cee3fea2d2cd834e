/**
 * @file ptx.cuh
 * @brief Plain PTX helpers that more than one chapter's kernels need and
 *        that teach nothing themselves.
 */
#ifndef TUTORIAL_PTX_CUH
#define TUTORIAL_PTX_CUH

#include <stdint.h>
#include <cuda_runtime.h>

/** @brief The 32-bit shared-memory address of a pointer into this block's shared memory (what PTX instructions take). */
__device__ __forceinline__ uint32_t smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/**
 * @brief Wait at hardware barrier @p id until @p nthreads threads (a multiple
 *        of 32) have reached it.
 *
 * `__syncthreads()` is barrier 0 with every thread of the block; ids 1-15
 * let two roles meet without stopping the others. Memory accesses before
 * the barrier are visible to every participating thread after it.
 *
 * `bar.sync` is PTX's `barrier.sync.aligned`: it is defined only when every
 * participating thread executes the same barrier instruction. The kernels
 * use it only where that holds (make_pipeline()'s set-up, the producers
 * sharing a tile index, each at one place in the code). The consumer ->
 * storer hand-off happens at two different places (the consumers' code and
 * the storers'), so it uses `cuda::barrier` instead; a first version with
 * `bar.sync` there gave correct results but was reported by racecheck.
 */
__device__ __forceinline__ void named_barrier_sync(int id, int nthreads)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(nthreads) : "memory");
}

/**
 * @brief Makes this thread's earlier shared-memory writes, made through the
 *        generic proxy (ordinary stores), visible to the async
 *        proxy that the tensor cores and the copy engines (TMA, bulk
 *        copies) read through: between writing shared memory and the
 *        barrier after which such a unit reads it.
 */
__device__ __forceinline__ void fence_proxy_async()
{
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

#endif
