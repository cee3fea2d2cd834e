/**
 * @file 07_tma_multicast/tma.cuh
 * @brief The Tensor Memory Accelerator from the device side: one thread arms
 *        a block's mbarrier with the bytes to expect, and issues bulk tensor
 *        copies (plain or multicast) that complete on it. Tensor maps are
 *        made on the host (tensor_map.h).
 *
 * The mbarriers themselves are chapter 06's (06_clusters_dsmem/cluster.cuh).
 */
#ifndef CH07_TMA_CUH
#define CH07_TMA_CUH

#include <stdint.h>

#include "../common/ptx.cuh" /* smem_addr() */

/**
 * @brief Arrive on this block's barrier @p bar and tell it to expect
 *        @p bytes more from asynchronous copies (`mbarrier.arrive.expect_tx`):
 *        its phase completes only when they have landed as well.
 */
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(
                     smem_addr(bar)),
                 "r"(bytes)
                 : "memory");
}

/**
 * @brief TMA: copy the box at element coordinates (@p x, @p y) of the 2-D
 *        tensor described by @p map into this block's shared memory at
 *        @p dst; the bytes complete_tx on @p bar.
 *
 * Out-of-range parts of the box are filled with zeros (and still count as
 * bytes delivered), which handles the tile tails of any M, N, K.
 */
// [tma_load]
__device__ __forceinline__ void tma_load_2d(void *dst, const void *map, int x, int y, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_addr(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar))
                 : "memory");
}

/**
 * @brief TMA multicast: as tma_load_2d(), but the box lands at the same
 *        shared-memory offset in every block of the cluster whose bit is set
 *        in @p mask (bit i = cluster rank i), and completes_tx on the barrier
 *        at @p bar's offset in each of them.
 */
__device__ __forceinline__ void tma_load_2d_multicast(void *dst, const void *map, int x, int y,
                                                      uint64_t *bar, uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(smem_addr(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(smem_addr(bar)), "h"(mask)
                 : "memory");
}
// [tma_load]

/**
 * @brief TMA the other way: copy the box at @p src in this block's shared
 *        memory to the box at element coordinates (@p x, @p y) of the 2-D
 *        tensor described by @p map. Parts of the box outside the tensor
 *        are not written. Completes through this thread's bulk async-group
 *        (bulk_commit(), bulk_wait_read()), not through a barrier.
 */
// [tma_store]
__device__ __forceinline__ void tma_store_2d(const void *map, const void *src, int x, int y)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(map),
                 "r"(smem_addr(src)), "r"(x), "r"(y)
                 : "memory");
}

/** @brief Close this thread's bulk async-group: the stores issued since the last commit. */
__device__ __forceinline__ void bulk_commit()
{
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}

/**
 * @brief Wait until at most @p N of this thread's bulk async-groups have
 *        not yet read their shared memory (they may still be writing to
 *        global memory): what a box may be refilled after.
 */
template <int N> __device__ __forceinline__ void bulk_wait_read()
{
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/** @brief Wait until every bulk async-group of this thread has completed, writes included. */
__device__ __forceinline__ void bulk_wait_all()
{
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
// [tma_store]

#endif
