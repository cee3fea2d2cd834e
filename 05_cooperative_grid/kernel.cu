/**
 * @file 05_cooperative_grid/kernel.cu
 * @brief Chapter 05: grid-wide synchronization. Work whose steps need data
 *        from other blocks, done with one kernel launch per step and with
 *        one cooperative launch whose blocks meet at `grid.sync()`.
 *
 * Three pieces, each in both forms:
 *  - a two-stage update repeated ITER times (stage 1 computes a from b's
 *    neighbours, stage 2 computes b from a's), where every stage needs the
 *    previous stage finished in every block;
 *  - a softmax over one long vector: the maximum and the sum are global, so
 *    the normalization must wait for every block's partial results;
 *  - the barrier alone: ITER grid.sync() calls against ITER empty launches.
 *
 * A cooperative launch is only accepted if every block can be resident at
 * once (otherwise grid.sync() could wait for a block that never starts), so
 * the grids here are sized from the occupancy API, and every loop is
 * grid-stride: correct for any grid size and any n.
 *
 * Knob: THREADS (threads per block).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <math.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#if !defined(THREADS)
#error "THREADS: set by 05_cooperative_grid/Makefile (make help lists them); build with make"
#endif
static_assert(THREADS % 32 == 0 && THREADS <= 1024, "THREADS must be a multiple of 32, at most 1024");
extern "C" const char coop_knobs[] = KNOB(THREADS);

namespace cg = cooperative_groups;

/* ------------------------------------------------------------ two stages */

/**
 * @brief dst[i] = (src[i-1] + src[i+1]) / 4 + src[i] / 2, zero outside
 *        [0, n); over all i, grid-stride.
 *
 * Every operation is rounded on its own (no contraction into an FMA), so
 * the host computes bit-identical results and the check can be exact: a
 * block that read a neighbour's value from before or after the barrier
 * shows up as a mismatch.
 */
// [stage]
__device__ __forceinline__ void smooth(int n, const float *__restrict__ src, float *__restrict__ dst)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        const float l = i > 0 ? src[i - 1] : 0.0f, r = i + 1 < n ? src[i + 1] : 0.0f;
        dst[i] = __fadd_rn(__fmul_rn(0.25f, __fadd_rn(l, r)), __fmul_rn(0.5f, src[i]));
    }
}
// [stage]

/** @brief Stage 1 as its own kernel: a from b. */
__global__ void __launch_bounds__(THREADS) stage1_kernel(int n, const float *b, float *a)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    TRACE_BEGIN(t_work);
    smooth(n, b, a);
    TRACE_END(t_work, TRACE_WORK, 1);
}

/** @brief Stage 2 as its own kernel: b from a. */
__global__ void __launch_bounds__(THREADS) stage2_kernel(int n, const float *a, float *b)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    TRACE_BEGIN(t_work);
    smooth(n, a, b);
    TRACE_END(t_work, TRACE_WORK, 2);
}

/**
 * @brief Both stages, @p iters times, in one cooperative launch.
 * @param n, iters   elements, iterations
 * @param a, b       the two arrays (b holds the initial values)
 * @param divergent  1: block 0 skips the last grid.sync() - the deadlock
 *                   the chapter warns about, for the watchdog test
 */
// [cooperative]
__global__ void __launch_bounds__(THREADS)
two_stage_cooperative(int n, int iters, float *a, float *b, int divergent)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    cg::grid_group grid = cg::this_grid();
    for (int it = 0; it < iters; ++it) {
        TRACE_BEGIN(t_a);
        smooth(n, b, a);
        TRACE_END(t_a, TRACE_WORK, 1);
        TRACE_BEGIN(t_sync_a);
        // ---- exercise 05.1: Separate the two stages with grid-wide barriers ----
        // hint: stage 2 reads a[i - 1] and a[i + 1], which other blocks write in stage 1,
        // hint: and the next iteration's stage 1 reads b likewise: every block must finish
        // hint: one stage before any block starts the next (two places).
        grid.sync(); /* every block's a is written (and visible) before anyone reads it */
        // ---- end of exercise 05.1 ----
        TRACE_END(t_sync_a, TRACE_GRID_SYNC, 1);
        TRACE_BEGIN(t_b);
        smooth(n, a, b);
        TRACE_END(t_b, TRACE_WORK, 2);
        if (divergent && blockIdx.x == 0 && it == iters - 1) return; /* never do this */
        TRACE_BEGIN(t_sync_b);
        // ---- exercise 05.1: Separate the two stages with grid-wide barriers ----
        grid.sync(); /* and every b before the next iteration reads it */
        // ---- end of exercise 05.1 ----
        TRACE_END(t_sync_b, TRACE_GRID_SYNC, 2);
    }
}
// [cooperative]

/* --------------------------------------------------------------- softmax */

/** @brief A running (maximum, sum of exp(x - maximum)) pair. */
struct max_sum {
    float m; /**< largest value seen (-inf: none) */
    float s; /**< sum of exp(x - m) over the values seen */
};

/** @brief The pair for the union of two sets of values. */
__device__ __forceinline__ max_sum merge(max_sum p, max_sum q)
{
    if (q.s == 0.0f) return p; /* an empty set (also keeps -inf - -inf out) */
    if (p.s == 0.0f) return q;
    const float m = fmaxf(p.m, q.m);
    return {m, p.s * expf(p.m - m) + q.s * expf(q.m - m)};
}

/** @brief Merge every thread's pair; every thread gets the block's. */
// [block_merge]
__device__ max_sum block_merge(max_sum v)
{
    __shared__ max_sum warp_part[THREADS / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    /* a shuffle tree over the warp's 32 pairs, merge() at each step */
    v = cg::reduce(warp, v, [](max_sum p, max_sum q) { return merge(p, q); });
    if (warp.thread_rank() == 0) warp_part[warp.meta_group_rank()] = v;
    block.sync();
    v = warp_part[0];
    for (unsigned w = 1; w < warp.meta_group_size(); ++w) v = merge(v, warp_part[w]);
    block.sync(); /* warp_part is reused by the next call */
    return v;
}
// [block_merge]

/** @brief Phase 1: this block's pair over its grid-stride share of x. */
__device__ void softmax_partial(int n, const float *__restrict__ x, max_sum *partials)
{
    max_sum v = {-INFINITY, 0.0f};
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v = merge(v, {x[i], 1.0f});
    v = block_merge(v);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
}

/** @brief Phase 2: merge all blocks' pairs (every block does it), then y = exp(x - max) / sum. */
__device__ void softmax_normalize(int n, const float *__restrict__ x, float *__restrict__ y,
                                  const max_sum *partials)
{
    max_sum v = {-INFINITY, 0.0f};
    for (int p = threadIdx.x; p < gridDim.x; p += blockDim.x) v = merge(v, partials[p]);
    v = block_merge(v);
    const float inv = 1.0f / v.s;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = expf(x[i] - v.m) * inv;
}

/** @brief Softmax phase 1 as its own kernel. */
__global__ void __launch_bounds__(THREADS) softmax_partial_kernel(int n, const float *x, max_sum *partials)
{
    softmax_partial(n, x, partials);
}

/** @brief Softmax phase 2 as its own kernel (the launch boundary is the barrier). */
__global__ void __launch_bounds__(THREADS)
softmax_normalize_kernel(int n, const float *x, float *y, const max_sum *partials)
{
    softmax_normalize(n, x, y, partials);
}

/** @brief Both phases in one cooperative launch. */
// [softmax]
__global__ void __launch_bounds__(THREADS)
softmax_cooperative(int n, const float *x, float *y, max_sum *partials)
{
    softmax_partial(n, x, partials);
    // ---- exercise 05.2: The softmax's two phases in one launch ----
    // hint: every block reads every block's partial (max, sum) in the second phase.
    cg::this_grid().sync(); /* every block's partial is in global memory */
    // ---- end of exercise 05.2 ----
    softmax_normalize(n, x, y, partials);
}
// [softmax]

/* ------------------------------------------------------- the barrier alone */

/** @brief Nothing: ITER launches of it measure the launch cost. */
__global__ void __launch_bounds__(THREADS) empty_grid_kernel(void) {}

/** @brief ITER grid-wide barriers and nothing else. */
__global__ void __launch_bounds__(THREADS) sync_loop(int iters)
{
    cg::grid_group grid = cg::this_grid();
    for (int it = 0; it < iters; ++it) grid.sync();
}

/* ------------------------------------------------------------- launchers */

extern "C" int coop_threads(void)
{
    return THREADS;
}

extern "C" size_t coop_partial_bytes(void)
{
    return sizeof(max_sum);
}

static const void *kernel_of(coop_kernel k)
{
    switch (k) {
    case COOP_TWO_STAGE: return (const void *)two_stage_cooperative;
    case COOP_SOFTMAX: return (const void *)softmax_cooperative;
    default: return (const void *)sync_loop;
    }
}

extern "C" cudaError_t coop_max_blocks(coop_kernel k, int *per_sm, int *blocks)
{
    int dev, sms;
    cudaError_t err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, kernel_of(k), THREADS, 0)) != cudaSuccess)
        return err;
    *blocks = *per_sm * sms;
    return cudaSuccess;
}

extern "C" cudaError_t launch_two_stage_launches(int n, int iters, float *a, float *b, int grid,
                                                 cudaStream_t stream)
{
    for (int it = 0; it < iters; ++it) {
        stage1_kernel<<<grid, THREADS, 0, stream>>>(n, b, a);
        stage2_kernel<<<grid, THREADS, 0, stream>>>(n, a, b);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

// [launch]
extern "C" cudaError_t launch_two_stage_cooperative(int n, int iters, float *a, float *b, int grid,
                                                    int divergent, cudaStream_t stream)
{
    void *args[] = {&n, &iters, &a, &b, &divergent};
    /* Refused (cudaErrorCooperativeLaunchTooLarge) rather than started when
     * the grid cannot be resident all at once: check what comes back. */
    return cudaLaunchCooperativeKernel((const void *)two_stage_cooperative, dim3(grid), dim3(THREADS),
                                       args, 0, stream);
}
// [launch]

extern "C" cudaError_t launch_softmax_two_kernels(int n, const float *x, float *y, void *partials,
                                                  int grid, cudaStream_t stream)
{
    softmax_partial_kernel<<<grid, THREADS, 0, stream>>>(n, x, (max_sum *)partials);
    softmax_normalize_kernel<<<grid, THREADS, 0, stream>>>(n, x, y, (const max_sum *)partials);
    return cudaGetLastError();
}

extern "C" cudaError_t launch_softmax_cooperative(int n, const float *x, float *y, void *partials,
                                                  int grid, cudaStream_t stream)
{
    void *args[] = {&n, &x, &y, &partials};
    return cudaLaunchCooperativeKernel((const void *)softmax_cooperative, dim3(grid), dim3(THREADS),
                                       args, 0, stream);
}

extern "C" cudaError_t launch_empty_grids(int iters, int grid, cudaStream_t stream)
{
    for (int it = 0; it < iters; ++it) {
        empty_grid_kernel<<<grid, THREADS, 0, stream>>>();
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

extern "C" cudaError_t launch_sync_loop(int iters, int grid, cudaStream_t stream)
{
    void *args[] = {&iters};
    return cudaLaunchCooperativeKernel((const void *)sync_loop, dim3(grid), dim3(THREADS), args, 0,
                                       stream);
}
