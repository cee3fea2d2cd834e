/**
 * @file 01_naive/demos/ceiling.h
 * @brief The instruction ceilings (ceiling.cu): launchers for the host, and
 *        the work each launch does, so that its rate follows from its time.
 */
#ifndef CH01_CEILING_H
#define CH01_CEILING_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "../../common/runner.h"

#ifdef __cplusplus
extern "C" {
#endif

/** @brief The instructions measured. */
enum { CEILING_FFMA, CEILING_MMA_SYNC, CEILING_WGMMA };

#define CEILING_THREADS 256            /**< threads per block of the FFMA and mma.sync kernels */
#define CEILING_FFMA_CHAINS 8          /**< independent FMA chains per thread: enough to cover the FMA's latency */
#define CEILING_MMA_CHAINS 8           /**< independent accumulators per warp: enough to cover mma.sync's latency */
#define CEILING_WG_K_STEPS 4           /**< wgmma m64n256k16 per committed group: a 64-deep K tile, as the kernels issue them */
#define CEILING_WGMMA_TILE_BYTES 49152 /**< the wgmma kernel's A (128 x 64) and B (64 x 256) BF16 tiles */

/** @brief One launch: which kernel, its grid, its random inputs, its output, how long it loops. */
typedef struct {
    int which;     /**< CEILING_FFMA, CEILING_MMA_SYNC or CEILING_WGMMA */
    int blocks;    /**< as many as fit the GPU at once (ceiling_grid()) */
    int threads;   /**< per block */
    size_t smem;   /**< dynamic shared memory per block */
    const void *seed; /**< random inputs on the device (at least CEILING_WGMMA_TILE_BYTES) */
    float *out;    /**< one float per thread, so the loop is kept */
    int iters;     /**< loop trips */
} ceiling_run;

/** @brief The grid that fills every SM with @p which's blocks: blocks, threads, dynamic shared memory. */
cudaError_t ceiling_grid(int which, int *blocks, int *threads, size_t *smem);

/** @brief Launch @p r in @p stream. */
cudaError_t launch_ceiling(const ceiling_run *r, cudaStream_t stream);

/** @brief The instruction ceilings' table, run before chapter 01's GEMMs (./run --only ceiling); an exit code. */
int ceiling_demo(chapter_env *env);

#ifdef __cplusplus
}
#endif

#endif
