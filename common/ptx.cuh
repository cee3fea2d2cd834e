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

#endif
