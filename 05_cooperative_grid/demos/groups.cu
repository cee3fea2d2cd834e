/**
 * @file 05_cooperative_grid/demos/groups.cu
 * @brief Cooperative Groups below the grid: tiles of a block, the
 *        collectives a tile offers, groups formed at run time, and what
 *        they are worth in a reduction; then a grid-wide reduction and a
 *        2-D Jacobi iteration, each with and without grid.sync().
 *
 * One typed API covers every scale: a `thread_block_tile<N>` from
 * `cg::tiled_partition<N>(block)` (N a power of two, at most 32, known at
 * compile time) has the warp's collectives (`shfl`, `shfl_up`, `shfl_down`,
 * `shfl_xor`, `ballot`, `any`, `all`, `match_any`) and a barrier (`sync`)
 * scoped to its N threads, and `cg::reduce` from
 * `<cooperative_groups/reduce.h>` reduces over any of them;
 * `cg::coalesced_threads()` and `cg::labeled_partition()` make groups
 * whose members are known only at run time.
 *
 * Every kernel here runs GROUPS_THREADS threads per block (the chapter's
 * THREADS knob belongs to kernel.cu).
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>

#include "groups.h"

namespace cg = cooperative_groups;

/* ------------------------------------------------------------ the tour */

/**
 * @brief Each collective of the hierarchy on known data: thread i holds
 *        v = v_in[i] (0..9); the host recomputes every result.
 *
 * All threads of the launch take part (the collectives need every member
 * of a tile); those at i >= n use v = 0 and write nothing.
 */
// [tour]
__global__ void __launch_bounds__(GROUPS_THREADS) groups_tour(int n, const int *__restrict__ v_in,
                                                               tour_result *__restrict__ out)
{
    cg::thread_block block = cg::this_thread_block();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = i < n ? v_in[i] : 0;
    tour_result r;

    /* Tiles of 32, 16, 8 and 4 threads: the same reduction at each size. */
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
    r.sum[0] = cg::reduce(t32, v, cg::plus<int>());
    r.sum[1] = cg::reduce(t16, v, cg::plus<int>());
    r.sum[2] = cg::reduce(t8, v, cg::plus<int>());
    r.sum[3] = cg::reduce(t4, v, cg::plus<int>());

    /* The same sum by hand in a 16-thread tile: halving offsets reach every
     * member only because 16 is a power of two; the total lands in rank 0. */
    int s = v;
    for (int o = t16.size() / 2; o > 0; o /= 2) s += t16.shfl_down(s, o);
    r.shfl_sum = t16.thread_rank() == 0 ? s : -1;

    /* Votes: a bit per member, or one answer for the whole tile. */
    r.ballot = t32.ballot(v % 3 == 0);
    r.any_all = (t8.any(v == 0) ? 1 : 0) | (t8.all(v < 5) ? 2 : 0);
    /* The members holding the same value as this thread. */
    r.match = t32.match_any(v % 4);
    /* Which 8-thread tile of the block this is, and how many there are. */
    r.meta = t8.meta_group_rank() * 100 + t8.meta_group_size();

    /* A group made by a branch: the threads that took it, renumbered. */
    r.coalesced = -1;
    if (v % 2) {
        cg::coalesced_group active = cg::coalesced_threads();
        r.coalesced = active.size() * 100 + active.thread_rank();
    }
    /* Groups by label: the warp's threads with the same v % 3. */
    cg::coalesced_group same = cg::labeled_partition(t32, v % 3);
    r.labeled = same.size() * 100 + same.thread_rank();

    /* The other shuffles. shfl reads one named member (a broadcast here);
     * shfl_up reads the member `o` ranks below, and a member with none below
     * keeps its own value, so the guard `rank >= o` makes an inclusive scan;
     * shfl_xor pairs members whose ranks differ in one bit, so after the
     * loop every member holds the total (shfl_down leaves it in rank 0). */
    r.broadcast = t32.shfl(v, 5);
    int scan = v;
    for (int o = 1; o < 8; o *= 2) {
        const int below = t8.shfl_up(scan, o);
        if (t8.thread_rank() >= o) scan += below;
    }
    r.scan = scan;
    int x = v;
    for (int o = 1; o < 16; o *= 2) x += t16.shfl_xor(x, o);
    r.xor_sum = x;

    /* A tile's barrier: the 16 threads of a tile exchange values through
     * shared memory, and only they wait for each other. Without sync() a
     * thread could read its neighbour's slot before the neighbour wrote it. */
    __shared__ int slot[GROUPS_THREADS];
    slot[threadIdx.x] = v;
    t16.sync();
    r.neighbour = slot[threadIdx.x - t16.thread_rank() + (t16.thread_rank() + 1) % 16];

    /* The grid as a group: its size and this thread's rank exist in any
     * launch. is_valid() says whether the launch carries the workspace that
     * grid.sync() needs; this launch is not cooperative, yet after a
     * cooperative launch in the same process it can say yes (the page shows
     * it), so the host's launch call, not is_valid(), says how a kernel
     * was launched. */
    cg::grid_group grid = cg::this_grid();
    r.grid_rank = (int)grid.thread_rank();
    r.grid_size = (int)grid.size();
    r.grid_valid = grid.is_valid();

    if (i < n) out[i] = r;
}
// [tour]

/* ------------------------------------------------ block reductions, 4 ways */

/* Every block sums GROUPS_THREADS consecutive elements (zeros past n) and
 * writes its sum to partial[blockIdx.x]; only the block-level step differs. */

/** @brief Shared-memory tree: halve the active threads, barrier each step. */
// [reduce_tree]
__global__ void __launch_bounds__(GROUPS_THREADS)
block_reduce_tree(int n, const float *__restrict__ x, float *__restrict__ partial)
{
    __shared__ float s[GROUPS_THREADS];
    const int i = blockIdx.x * GROUPS_THREADS + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int h = GROUPS_THREADS / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
// [reduce_tree]

/** @brief Warp shuffles by hand: each warp reduces in registers, then warp 0 the warps' sums. */
// [reduce_shfl]
__global__ void __launch_bounds__(GROUPS_THREADS)
block_reduce_shfl(int n, const float *__restrict__ x, float *__restrict__ partial)
{
    __shared__ float warp_sum[GROUPS_THREADS / 32];
    const int i = blockIdx.x * GROUPS_THREADS + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (threadIdx.x % 32 == 0) warp_sum[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < GROUPS_THREADS / 32 ? warp_sum[threadIdx.x] : 0.0f;
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
        if (threadIdx.x == 0) partial[blockIdx.x] = v;
    }
}
// [reduce_shfl]

/** @brief The same with 32-thread tiles and cg::reduce: no masks, no offsets. */
// [reduce_cg]
__global__ void __launch_bounds__(GROUPS_THREADS)
block_reduce_cg32(int n, const float *__restrict__ x, float *__restrict__ partial)
{
    __shared__ float tile_sum[GROUPS_THREADS / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    const int i = blockIdx.x * GROUPS_THREADS + threadIdx.x;
    const float v = cg::reduce(tile, i < n ? x[i] : 0.0f, cg::plus<float>());
    if (tile.thread_rank() == 0) tile_sum[tile.meta_group_rank()] = v;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        const float w = tile.thread_rank() < tile.meta_group_size() ? tile_sum[tile.thread_rank()] : 0.0f;
        const float total = cg::reduce(tile, w, cg::plus<float>());
        if (tile.thread_rank() == 0) partial[blockIdx.x] = total;
    }
}
// [reduce_cg]

/** @brief 8-thread tiles: three shuffle steps instead of five, four times the partial sums. */
__global__ void __launch_bounds__(GROUPS_THREADS)
block_reduce_cg8(int n, const float *__restrict__ x, float *__restrict__ partial)
{
    __shared__ float tile_sum[GROUPS_THREADS / 8];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    const int i = blockIdx.x * GROUPS_THREADS + threadIdx.x;
    const float v = cg::reduce(t8, i < n ? x[i] : 0.0f, cg::plus<float>());
    if (t8.thread_rank() == 0) tile_sum[t8.meta_group_rank()] = v;
    block.sync();
    /* The first warp adds the GROUPS_THREADS / 8 tile sums. */
    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    if (t32.meta_group_rank() == 0) {
        float w = 0.0f;
        for (int k = t32.thread_rank(); k < GROUPS_THREADS / 8; k += 32) w += tile_sum[k];
        const float total = cg::reduce(t32, w, cg::plus<float>());
        if (t32.thread_rank() == 0) partial[blockIdx.x] = total;
    }
}

/* ------------------------------------------------- a grid-wide reduction */

/**
 * @brief The block's sum of x[i] for i < n, thread t taking i = first + t,
 *        first + t + stride, ... (a grid-stride share: first =
 *        blockIdx.x * GROUPS_THREADS, stride = the grid's threads; the whole
 *        of x: 0 and GROUPS_THREADS), reduced with 32-thread tiles; every
 *        thread gets the sum.
 *
 * No __restrict__ here (nor in jacobi_sweep()): a cooperative kernel reads
 * what other blocks wrote earlier in the same launch, and a const
 * __restrict__ pointer lets the compiler load through the read-only,
 * non-coherent cache (ld.global.nc), which may hold a line from before the
 * grid.sync().
 */
__device__ float block_sum(int n, const float *x, int first, int stride)
{
    __shared__ float tile_sum[GROUPS_THREADS / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    float v = 0.0f;
    for (int i = first + (int)threadIdx.x; i < n; i += stride) v += x[i];
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) tile_sum[tile.meta_group_rank()] = v;
    block.sync();
    const float w = tile.thread_rank() < tile.meta_group_size() ? tile_sum[tile.thread_rank()] : 0.0f;
    v = cg::reduce(tile, w, cg::plus<float>());
    block.sync(); /* tile_sum is reused by the next call */
    return v;
}

/** @brief Phase 1: one partial sum per block, in global memory. */
__global__ void __launch_bounds__(GROUPS_THREADS) sum_partials(int n, const float *x, float *partial)
{
    const float v = block_sum(n, x, blockIdx.x * GROUPS_THREADS, gridDim.x * GROUPS_THREADS);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

/** @brief Phase 2 (one block): the sum of the @p count partials. */
__global__ void __launch_bounds__(GROUPS_THREADS) sum_of_partials(int count, const float *partial, float *total)
{
    const float v = block_sum(count, partial, 0, GROUPS_THREADS);
    if (threadIdx.x == 0) *total = v;
}

/**
 * @brief Both phases in one cooperative launch. After grid.sync(), block 0
 *        reads the partials from global memory, where every block wrote
 *        them; its own shared memory holds only its own partial.
 */
// [grid_reduce]
__global__ void __launch_bounds__(GROUPS_THREADS)
sum_cooperative(int n, const float *x, float *partial, float *total)
{
    cg::grid_group grid = cg::this_grid();
    /* Launched without the grid's workspace, grid.sync() would trap; every
     * block leaves instead, and the NaN fails the host's check. */
    if (!grid.is_valid()) {
        if (blockIdx.x == 0 && threadIdx.x == 0) *total = __int_as_float(0x7fc00000);
        return;
    }
    /* grid.size(): the launch's threads, the stride of the grid-stride share */
    const float v = block_sum(n, x, blockIdx.x * GROUPS_THREADS, (int)grid.size());
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
    grid.sync(); /* every partial is written and visible */
    if (blockIdx.x == 0) {
        const float t = block_sum(gridDim.x, partial, 0, GROUPS_THREADS);
        if (threadIdx.x == 0) *total = t;
    }
}
// [grid_reduce]

/** @brief Each block adds its sum to *total with one atomic (in any order). */
__global__ void __launch_bounds__(GROUPS_THREADS) sum_atomic(int n, const float *x, float *total)
{
    const float v = block_sum(n, x, blockIdx.x * GROUPS_THREADS, gridDim.x * GROUPS_THREADS);
    if (threadIdx.x == 0) atomicAdd(total, v);
}

/* ---------------------------------------------------- 2-D Jacobi (Laplace) */

/**
 * @brief One sweep over the interior of an n x n grid: dst = the average
 *        of src's four neighbours; the border keeps its values. A block
 *        takes interior rows (grid-stride: blockIdx.x, + gridDim.x, ...),
 *        its threads the columns of a row, so the reads are coalesced and
 *        no index is divided. Each operation is rounded on its own, so the
 *        host reproduces it bit for bit.
 */
// [jacobi_sweep]
__device__ __forceinline__ void jacobi_sweep(int n, const float *src, float *dst)
{
    for (int r = 1 + blockIdx.x; r < n - 1; r += gridDim.x)
        for (int c = 1 + threadIdx.x; c < n - 1; c += blockDim.x) {
            const long q = (long)r * n + c;
            const float ns = __fadd_rn(src[q - n], src[q + n]), we = __fadd_rn(src[q - 1], src[q + 1]);
            dst[q] = __fmul_rn(0.25f, __fadd_rn(ns, we));
        }
}
// [jacobi_sweep]

/** @brief One sweep per launch. */
__global__ void __launch_bounds__(GROUPS_THREADS) jacobi_step(int n, const float *src, float *dst)
{
    jacobi_sweep(n, src, dst);
}

/** @brief @p iters sweeps in one cooperative launch, alternating u and v, a grid.sync() between. */
// [jacobi_cooperative]
__global__ void __launch_bounds__(GROUPS_THREADS) jacobi_cooperative(int n, int iters, float *u, float *v)
{
    cg::grid_group grid = cg::this_grid();
    for (int it = 0; it < iters; ++it) {
        jacobi_sweep(n, it % 2 == 0 ? u : v, it % 2 == 0 ? v : u);
        grid.sync(); /* the sweep is complete everywhere before the next reads it */
    }
}
// [jacobi_cooperative]

/* ---------------------------------------------------------- launchers */

extern "C" cudaError_t launch_groups_tour(int n, const int *v, tour_result *out, cudaStream_t stream)
{
    groups_tour<<<(n + GROUPS_THREADS - 1) / GROUPS_THREADS, GROUPS_THREADS, 0, stream>>>(n, v, out);
    return cudaGetLastError();
}

extern "C" cudaError_t launch_block_reduce(block_reduce_way way, int n, const float *x, float *partial,
                                           cudaStream_t stream)
{
    const int blocks = (n + GROUPS_THREADS - 1) / GROUPS_THREADS;
    switch (way) {
    case REDUCE_TREE: block_reduce_tree<<<blocks, GROUPS_THREADS, 0, stream>>>(n, x, partial); break;
    case REDUCE_SHFL: block_reduce_shfl<<<blocks, GROUPS_THREADS, 0, stream>>>(n, x, partial); break;
    case REDUCE_CG32: block_reduce_cg32<<<blocks, GROUPS_THREADS, 0, stream>>>(n, x, partial); break;
    default: block_reduce_cg8<<<blocks, GROUPS_THREADS, 0, stream>>>(n, x, partial); break;
    }
    return cudaGetLastError();
}

static const void *groups_coop_kernel(int which)
{
    return which == 0 ? (const void *)sum_cooperative : (const void *)jacobi_cooperative;
}

extern "C" cudaError_t groups_coop_blocks(int which, int *blocks)
{
    int dev, sms, per_sm;
    cudaError_t err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
        (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, groups_coop_kernel(which), GROUPS_THREADS,
                                                             0)) != cudaSuccess)
        return err;
    *blocks = per_sm * sms;
    return cudaSuccess;
}

extern "C" cudaError_t launch_sum(sum_way way, int n, const float *x, float *partial, float *total, int grid,
                                  cudaStream_t stream)
{
    cudaError_t err;
    switch (way) {
    case SUM_TWO_KERNELS:
        sum_partials<<<grid, GROUPS_THREADS, 0, stream>>>(n, x, partial);
        sum_of_partials<<<1, GROUPS_THREADS, 0, stream>>>(grid, partial, total);
        return cudaGetLastError();
    case SUM_COOPERATIVE: {
        void *args[] = {&n, &x, &partial, &total};
        return cudaLaunchCooperativeKernel((const void *)sum_cooperative, dim3(grid), dim3(GROUPS_THREADS), args, 0,
                                           stream);
    }
    default:
        if ((err = cudaMemsetAsync(total, 0, sizeof(float), stream)) != cudaSuccess) return err;
        sum_atomic<<<grid, GROUPS_THREADS, 0, stream>>>(n, x, total);
        return cudaGetLastError();
    }
}

extern "C" cudaError_t launch_jacobi_launches(int n, int iters, float *u, float *v, int grid, cudaStream_t stream)
{
    for (int it = 0; it < iters; ++it) {
        jacobi_step<<<grid, GROUPS_THREADS, 0, stream>>>(n, it % 2 == 0 ? u : v, it % 2 == 0 ? v : u);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

extern "C" cudaError_t launch_jacobi_cooperative(int n, int iters, float *u, float *v, int grid,
                                                 cudaStream_t stream)
{
    void *args[] = {&n, &iters, &u, &v};
    return cudaLaunchCooperativeKernel((const void *)jacobi_cooperative, dim3(grid), dim3(GROUPS_THREADS), args, 0,
                                       stream);
}
