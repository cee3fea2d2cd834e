/**
 * @file 03_warp_specialized/roles.cuh
 * @brief What a storer role needs: the group of warps that own the
 *        cuda::pipeline (the storers stay out of it), a named barrier for
 *        that group, and the C tile staged in shared memory. Introduced in
 *        chapter 03, reused by chapter 04; the consumer -> storer hand-off
 *        itself is a `cuda::barrier` in the kernels.
 *
 * The staged C tile is Cs[BM][BN], row-major, so the storer's 16-byte
 * reads and global writes walk whole rows.
 */
#ifndef CH03_ROLES_CUH
#define CH03_ROLES_CUH

#include <cuda_runtime.h>

#include "../common/ptx.cuh" /* named_barrier_sync() */
#include "../01_naive/blocked.cuh" /* BM, BN, TM, TN, block_row(), store4_guarded() */

/** @brief Named barrier of the storer variants: make_pipeline() over producers and consumers only. */
#define BAR_PIPE 1

/**
 * @brief The threads 0 .. @p n - 1 of the block, as the group argument of
 *        `cuda::make_pipeline()`.
 *
 * The pipeline counts every thread of its group as a producer or a
 * consumer, and every consumer must release every stage. Storer warps take
 * no part in the ring, so they must not be in the group; cooperative groups
 * has no group for "the first n threads of a block", and make_pipeline()
 * only needs size(), thread_rank() and sync(), which this provides (sync()
 * is named barrier @p bar_id over the n threads).
 */
struct leading_threads {
    unsigned n;      /**< threads in the group (a multiple of 32) */
    int bar_id;      /**< named barrier that sync() uses */
    /** @brief number of threads in the group */
    __device__ unsigned long long size() const { return n; }
    /** @brief this thread's rank in the group */
    __device__ unsigned long long thread_rank() const { return threadIdx.x; }
    /** @brief barrier over the group's threads */
    __device__ void sync() const { named_barrier_sync(bar_id, (int)n); }
};

/**
 * @brief A consumer's epilogue when a storer writes C: put the thread's
 *        8 x 8 accumulators where store_tile() would put them, but in the
 *        staged tile @p Cs instead of global memory; with @p add, add them
 *        to what Cs holds (chapter 04's residual, fetched by the storers).
 */
// [stage_c]
__device__ __forceinline__ void stage_c(float (*Cs)[BN], const float acc[TM][TN], int tx, int ty,
                                        bool add = false)
{
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = block_row(i, ty);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            float4 *p = reinterpret_cast<float4 *>(&Cs[row][h * (BN / 2) + tx * 4]);
            float4 v = make_float4(acc[i][h * 4 + 0], acc[i][h * 4 + 1], acc[i][h * 4 + 2],
                                   acc[i][h * 4 + 3]);
            if (add) { /* a compile-time constant at every call */
                const float4 r = *p;
                v = make_float4(v.x + r.x, v.y + r.y, v.z + r.z, v.w + r.w);
            }
            *p = v;
        }
    }
}
// [stage_c]

/**
 * @brief The storer's job: copy the staged tile @p Cs to C at (@p m0, @p n0),
 *        16 bytes per thread per step, consecutive threads on consecutive
 *        pieces of a row (coalesced); elements outside M x N are dropped.
 * @param C         output, M x N
 * @param Cs        the staged tile
 * @param m0, n0    the tile's first row and column in C
 * @param M, N      size of C
 * @param tid       the thread's rank among the @p nthreads storer threads
 * @param nthreads  storer threads; a compile-time constant at every call
 */
// [write_c]
__device__ __forceinline__ void write_staged_c(float *__restrict__ C, const float (*Cs)[BN], int m0,
                                               int n0, int M, int N, int tid, int nthreads)
{
    const bool c_vec = rows_aligned16(C, N);
#pragma unroll 4
    for (int e = tid; e < BM * BN / 4; e += nthreads) {
        const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        store4_guarded(C, m0 + r, n0 + c, M, N, c_vec,
                       *reinterpret_cast<const float4 *>(&Cs[r][c]));
    }
}
// [write_c]

#endif
