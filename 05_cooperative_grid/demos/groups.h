/**
 * @file 05_cooperative_grid/demos/groups.h
 * @brief Launchers of groups.cu: the Cooperative Groups tour, four block
 *        reductions, a grid-wide sum three ways and a 2-D Jacobi
 *        iteration with and without grid.sync().
 */
#ifndef CH05_GROUPS_H
#define CH05_GROUPS_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GROUPS_THREADS 256 /**< threads per block of every kernel in groups.cu */

/** @brief What one thread of the tour writes (groups_tour() says how each is made). */
typedef struct {
    int sum[4];        /**< cg::reduce over its tile of 32, 16, 8 and 4 threads */
    int shfl_sum;      /**< shfl_down loop over its 16-thread tile: the sum in rank 0, else -1 */
    unsigned ballot;   /**< 32-thread tile: ballot(v % 3 == 0) */
    int any_all;       /**< 8-thread tile: any(v == 0) in bit 0, all(v < 5) in bit 1 */
    unsigned match;    /**< 32-thread tile: match_any(v % 4) */
    int meta;          /**< 8-thread tile: meta_group_rank * 100 + meta_group_size */
    int coalesced;     /**< where v is odd: size * 100 + rank in coalesced_threads(); else -1 */
    int labeled;       /**< labeled_partition(32-thread tile, v % 3): size * 100 + rank */
    int broadcast;     /**< 32-thread tile: shfl(v, 5), rank 5's value in every member */
    int scan;          /**< 8-thread tile: inclusive prefix sum by shfl_up */
    int xor_sum;       /**< 16-thread tile: sum by shfl_xor, in every member */
    int neighbour;     /**< 16-thread tile: the next rank's v (wrapping) through shared memory after sync() */
    int grid_rank;     /**< this_grid().thread_rank() */
    int grid_size;     /**< this_grid().size() */
    int grid_valid;    /**< this_grid().is_valid(): reported, not predicted (see groups_tour()) */
} tour_result;

/** @brief The block-level step of a block reduction. */
typedef enum { REDUCE_TREE, REDUCE_SHFL, REDUCE_CG32, REDUCE_CG8 } block_reduce_way;

/** @brief How the blocks' sums become one. */
typedef enum { SUM_TWO_KERNELS, SUM_COOPERATIVE, SUM_ATOMIC } sum_way;

/** @brief The tour over @p n threads, each with its value v[i], into out[i]. */
cudaError_t launch_groups_tour(int n, const int *v, tour_result *out, cudaStream_t stream);
/** @brief partial[b] = sum of x[b * GROUPS_THREADS ...] (GROUPS_THREADS elements, zeros past n). */
cudaError_t launch_block_reduce(block_reduce_way way, int n, const float *x, float *partial,
                                cudaStream_t stream);
/** @brief Most resident blocks of the cooperative sum (@p which = 0) or Jacobi (1) kernel. */
cudaError_t groups_coop_blocks(int which, int *blocks);
/** @brief *total = sum of x (n elements) on @p grid blocks; partial: grid floats (unused by atomics). */
cudaError_t launch_sum(sum_way way, int n, const float *x, float *partial, float *total, int grid,
                       cudaStream_t stream);
/** @brief @p iters Jacobi sweeps of an n x n grid, one launch of @p grid blocks each (a block per row: n - 2), u -> v -> u ... */
cudaError_t launch_jacobi_launches(int n, int iters, float *u, float *v, int grid, cudaStream_t stream);
/** @brief The same sweeps in one cooperative launch, grid.sync() between them. */
cudaError_t launch_jacobi_cooperative(int n, int iters, float *u, float *v, int grid, cudaStream_t stream);

#ifndef __CUDACC__
#include "../../common/runner.h"
/**
 * @brief The demonstrations --only selects ("groups", "reduce", "jacobi"):
 *        the tour over @p n_tour threads, the reductions of @p n_reduce
 *        floats, @p iters Jacobi sweeps of a @p side x @p side grid; the
 *        cooperative rows only where @p coop. Returns 1 when all verified.
 */
int groups_demo(chapter_env *e, int coop, int n_tour, int n_reduce, int side, int iters);
#endif

#ifdef __cplusplus
}
#endif

#endif
