/**
 * @file 04_persistent/kernel.cu
 * @brief Chapter 04: gemm_persistent, chapter 03's warp-specialized GEMM
 *        made persistent.
 *
 * About one block per SM stays resident and takes output tiles from an
 * atomic counter, in the grouped order of tile_order.cuh, so its producers
 * copy the next tile's stages while its consumers finish the current one.
 * variants.cu and pingpong.cu hold the epilogues the page measures.
 *
 * Parent: 03_warp_specialized/kernel.cu. Knobs: make help.
 */

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */
#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS GROUP (the Makefile sets them) */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "../03_warp_specialized/roles.cuh" /* named_barrier_sync() */
#include "tile_order.cuh" /* tile_coords(): the grouped order */

#define WS_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
static_assert(WS_THREADS <= 1024, "too many threads per block");

extern "C" const char gemm_persistent_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES) KNOB(PRODUCER_WARPS)
    KNOB(GROUP);

namespace cg = cooperative_groups;

/**
 * @brief Persistent warp-specialized GEMM: each block takes output tiles
 *        from @p next_tile until all are done.
 * @param M, N, K    problem size
 * @param A, B       inputs (M x K, K x N, row-major)
 * @param C          output (M x N)
 * @param next_tile  the tile counter; 0 at launch (the launcher resets it)
 */
// [kernel]
__global__ void __launch_bounds__(WS_THREADS, MIN_BLOCKS)
gemm_persistent(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                float *__restrict__ C, int *__restrict__ next_tile)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile) */
    /* __shared__ objects are never constructed; make_pipeline() below
     * initializes the state's barriers, so nvcc's warning about skipping the
     * constructor does not apply here. */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
#pragma nv_diag_default static_var_with_dynamic_init
    __shared__ int stage_tile[STAGES]; /* which output tile stage s belongs to; -1: no more */
    __shared__ int fetched[2];         /* the producers' last two fetched tile indices */

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + BK - 1) / BK;

    /* Roles go by whole warps, so no warp ever diverges between them. */
    const bool producer = threadIdx.x < PRODUCER_THREADS;
    /* A partitioned pipeline: the stage barriers expect PRODUCER_THREADS
     * commits and CONSUMER_THREADS releases. Every thread of the block must
     * make it (it initializes the barriers and synchronizes them). */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    // hint: as in chapter 03's kernel.cu: each thread's role in the partitioned pipeline.
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state,
                                    producer ? cuda::pipeline_role::producer
                                             : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);
    // ---- end of exercise 03.1 ----

    if (producer) {
        // [producer]
        const bool b_vec = rows_aligned16(B, N);
        int s = 0; /* the stage the next acquire gets: the pipeline's order, tile after tile */
        for (int j = 0;; ++j) {
            /* One atomic per tile for the whole block, shared through shared
             * memory; two slots, so thread 0 never overwrites a value that
             * another producer has not read yet. */
            TRACE_BEGIN(t_fetch);
            // ---- exercise 04.1: Take the next output tile from the queue ----
            // hint: one thread takes a ticket (atomicAdd on next_tile) and hands it to the other
            // hint: producers through fetched[j & 1]; they wait for it at a named barrier
            // hint: (named_barrier_sync(BAR_FETCH, PRODUCER_THREADS)) before reading it.
            if (threadIdx.x == 0) fetched[j & 1] = atomicAdd(next_tile, 1);
            named_barrier_sync(BAR_FETCH, PRODUCER_THREADS);
            const int t = fetched[j & 1];
            // stub: const int t = tiles; (void)fetched[0]; /* no tile: the producers stop at once */
            // ---- end of exercise 04.1 ----
            TRACE_END(t_fetch, TRACE_FETCH, t);
            if (t >= tiles) break;
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                TRACE_BEGIN(t_wait);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                // hint: as in chapter 03: wait for a free stage here, and commit it after issue_tile().
                pipe.producer_acquire(); /* wait until the consumers released stage s */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
                TRACE_BEGIN(t_issue);
                if (threadIdx.x == 0) stage_tile[s] = t;
                issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, tm * BM, tn * BN,
                           kt * BK, b_vec, threadIdx.x, PRODUCER_THREADS, pipe);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_commit(); /* stage s is full once these copies land */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_issue, TRACE_ISSUE, t);
                s = (s + 1) % STAGES;
            }
        }
        /* One more stage with no data tells the consumers to stop. */
        // ---- exercise 04.2: Tell the consumers that the queue is empty ----
        // hint: the consumers learn a stage's tile from stage_tile[s]; -1 means stop. Publish
        // hint: it the way every stage is published: acquire the stage, write, commit.
        pipe.producer_acquire();
        if (threadIdx.x == 0) stage_tile[s] = -1;
        pipe.producer_commit();
        // ---- end of exercise 04.2 ----
        // [producer]
    } else {
        // [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        int s = 0;
        for (;;) {
            TRACE_BEGIN(t_first);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            // hint: as in chapter 03: wait for each stage before reading it, release it after.
            pipe.consumer_wait(); /* the first stage of the next tile has landed */
            // ---- end of exercise 03.3 ----
            const int t = stage_tile[s]; /* published by the stage's commit */
            TRACE_END(t_first, TRACE_WAIT_FULL, t);
            if (t < 0) {
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_release();
                // ---- end of exercise 03.3 ----
                break;
            }
            float acc[TM][TN] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                if (kt > 0) {
                    TRACE_BEGIN(t_wait);
                    // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                    pipe.consumer_wait(); /* stage kt of tile t has landed */
                    // ---- end of exercise 03.3 ----
                    TRACE_END(t_wait, TRACE_WAIT_FULL, t);
                }
                TRACE_BEGIN(t_math);
                compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
                TRACE_END(t_math, TRACE_COMPUTE, t);
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_release(); /* the producers may refill stage s */
                // ---- end of exercise 03.3 ----
                s = (s + 1) % STAGES;
            }
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            TRACE_BEGIN(t_store);
            store_tile(C, acc, tm * BM, tn * BN, M, N, tx, ty);
            TRACE_END(t_store, TRACE_STORE, t);
        }
        // [consumer]
    }
}
// [kernel]

/* The tile counter, and the grid size from the occupancy API (both once). */
static int *tile_counter;
static int resident_blocks;

extern "C" cudaError_t launch_gemm_persistent(int M, int N, int K, const float *A, const float *B,
                                              float *C, cudaStream_t stream)
{
    const size_t smem = RING_BYTES;
    cudaError_t err;
    if (tile_counter == NULL) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)gemm_persistent, smem)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_persistent, WS_THREADS,
                                                                 smem)) != cudaSuccess ||
            (err = cudaMalloc((void **)&tile_counter, sizeof(int))) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
        resident_blocks = per_sm * sms;
    }
    // [launch]
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const int grid = tiles < resident_blocks ? tiles : resident_blocks;
    /* Every launch starts the queue at tile 0: reset the counter in the
     * same stream, so it happens after the previous launch and before this one. */
    // ---- exercise 04.3: Start every launch's queue at tile 0 ----
    // hint: the counter lives in device memory and the previous launch left it at `tiles`
    // hint: or more; reset it in the launch's stream, so the reset is ordered between launches.
    err = cudaMemsetAsync(tile_counter, 0, sizeof(int), stream);
    if (err != cudaSuccess) return err;
    // ---- end of exercise 04.3 ----
    gemm_persistent<<<grid, WS_THREADS, smem, stream>>>(M, N, K, A, B, C, tile_counter);
    // [launch]
    return cudaGetLastError();
}
SMEM_REPORT(persistent, RING_BYTES)
