/**
 * @file 02_double_buffer/async_copy_tc.cuh
 * @brief The tensor-core line's asynchronous tile copies: chapter 02's
 *        cp.async, aimed at wgmma's swizzled layout (01_naive/blocked_tc.cuh)
 *        and joining the same `cuda::pipeline`. Introduced for
 *        double_buffer_tc, reused by chapter 03's producer warps.
 *
 * A stage of the ring is one A tile and one B tile, TC_STAGE_BYTES, starting
 * at a multiple of 1024 bytes (the swizzle's period).
 */
#ifndef CH02_ASYNC_COPY_TC_CUH
#define CH02_ASYNC_COPY_TC_CUH

#include <cuda/pipeline>

#include "../01_naive/blocked_tc.cuh"

/* The ring depth, checked once here for every tensor-core kernel with a ring. */
#ifdef TC_STAGES
static_assert(TC_STAGES >= 2 && TC_STAGES <= 8, "TC_STAGES must be 2..8");
#endif

/** @brief The A tile of stage @p s of the ring at @p ring (1024-aligned). */
__device__ __forceinline__ uint8_t *stage_a_tc(uint8_t *ring, int s)
{
    return ring + (size_t)s * TC_STAGE_BYTES;
}

/** @brief The B tile of stage @p s. */
__device__ __forceinline__ uint8_t *stage_b_tc(uint8_t *ring, int s)
{
    return ring + (size_t)s * TC_STAGE_BYTES + TC_A_BYTES;
}

/**
 * @brief Start an asynchronous 16-byte copy from global memory to shared
 *        memory: PTX `cp.async` (SASS LDGSTS), the instruction
 *        `cuda::memcpy_async` issues. `cuda::memcpy_async` tests the two
 *        pointers' memory spaces first, with a plain copy as the fallback,
 *        unless nvcc can see them; align1024() hides that the ring is
 *        shared memory, so here its test and fallback would stay beside
 *        every copy (02's page has the comparison). The pipeline's next
 *        producer_commit() covers it.
 */
__device__ __forceinline__ void cp_async16(uint8_t *dst, const uint16_t *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(smem_addr(dst)), "l"(src) : "memory");
}

/**
 * @brief Start this thread's copies of K-tile @p k0 into one stage (A tile
 *        at @p As, B tile at @p Bs), NTHREADS copying threads (ids @p tid);
 *        BCOLS columns of B (tile_chunks()).
 *
 * Chunks inside the matrices go by cp.async (tile_chunks(), chapter 01);
 * those at the edges are loaded element by element and stored, zeros
 * outside the matrix. Those ordinary stores go through the generic proxy,
 * which wgmma does not read through: a thread that made any fences once
 * at the end (fence_tile_stores(); ldmatrix needs none), which makes them
 * visible to it (the pipeline's stage barrier then publishes them to the
 * other threads). The memory model asks for the same fence between the
 * cp.async copies (generic proxy too) and wgmma; like CUTLASS's cp.async
 * mainloops for wgmma, these kernels rely on the wait on the stage's
 * barrier instead (the chapter page says more).
 */
// [issue]
template <int NTHREADS, int BCOLS = TC_BN>
__device__ __forceinline__ void issue_tile_tc(uint8_t *As, uint8_t *Bs, const uint16_t *__restrict__ A,
                                              const uint16_t *__restrict__ B, int M, int N, int K, int m0, int n0,
                                              int k0, bool a_vec, bool b_vec, int tid)
{
    if (tile_chunks<NTHREADS, BCOLS>(As, Bs, A, B, M, N, K, m0, n0, k0, a_vec, b_vec, tid, cp_async16))
        fence_tile_stores();
}
// [issue]

#endif
