/**
 * @file 05_cooperative_grid/kernel.h
 * @brief Launchers of chapter 05: multi-launch and cooperative versions of
 *        a two-stage update, a softmax, and the grid barrier alone.
 */
#ifndef CH05_KERNEL_H
#define CH05_KERNEL_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The chapter's cooperative kernels (for their occupancy limits). */
typedef enum { COOP_TWO_STAGE, COOP_SOFTMAX, COOP_SYNC_LOOP } coop_kernel;

/** @brief Threads per block (the THREADS knob). */
int coop_threads(void);
/** @brief " THREADS=...": the knob, appended to every row's knobs string. */
extern const char coop_knobs[];
/** @brief Bytes of one block's softmax partial result. */
size_t coop_partial_bytes(void);
/**
 * @brief Most blocks of kernel @p k that can be resident at once:
 *        @p per_sm (occupancy API) times the SM count, in @p blocks.
 */
cudaError_t coop_max_blocks(coop_kernel k, int *per_sm, int *blocks);

/** @brief The update as 2 x @p iters ordinary launches (stage 1, stage 2, ...). */
cudaError_t launch_two_stage_launches(int n, int iters, float *a, float *b, int grid,
                                      cudaStream_t stream);
/** @brief The update as one cooperative launch; @p divergent = 1 plants the deadlock. */
cudaError_t launch_two_stage_cooperative(int n, int iters, float *a, float *b, int grid,
                                         int divergent, cudaStream_t stream);
/** @brief Softmax of x (n elements) into y with two kernels; partials: grid entries. */
cudaError_t launch_softmax_two_kernels(int n, const float *x, float *y, void *partials, int grid,
                                       cudaStream_t stream);
/** @brief The same softmax as one cooperative launch. */
cudaError_t launch_softmax_cooperative(int n, const float *x, float *y, void *partials, int grid,
                                       cudaStream_t stream);
/** @brief @p iters launches of an empty kernel on @p grid blocks. */
cudaError_t launch_empty_grids(int iters, int grid, cudaStream_t stream);
/** @brief One cooperative launch doing @p iters grid.sync() and nothing else. */
cudaError_t launch_sync_loop(int iters, int grid, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
