/**
 * @file 04_persistent/kernel_tc.cu
 * @brief Chapter 04 on the tensor cores: persistent_tc, chapter 03's
 *        warp_specialized_tc made persistent.
 *
 * One block per SM stays resident and takes output tiles from an atomic
 * counter, in the grouped order of tile_order.cuh; its warpgroups keep
 * their roles and registers for the whole kernel, so the producers fill
 * the ring with the next tile's first stages while the consumers store
 * the last tile's C.
 *
 * Parent: 03_warp_specialized/kernel_tc.cu. Knobs: make help. Built for sm_80 and later.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/ptx.cuh" /* named_barrier_sync() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "../01_naive/blocked_tc.cuh" /* the tile, mma_tile(), store_tile_tc() */
#include "../02_double_buffer/async_copy_tc.cuh" /* issue_tile_tc(), stage_a_tc(), stage_b_tc() */
#include "../03_warp_specialized/regs.cuh" /* LAUNCH_REGS(), CHECK_REG_SPLIT(), warpgroup_set_registers() */
#include "tile_order.cuh" /* grouped_tile_coords() */

#if !defined(TC_STAGES) || !defined(TC_GROUP) || !defined(TC_PRODUCER_REGS) || !defined(TC_CONSUMER_REGS)
#error "TC_STAGES TC_GROUP TC_PRODUCER_REGS TC_CONSUMER_REGS: set by the chapter's Makefile (make help lists them); build with make"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_BAR_FETCH 2       /**< named barrier: the producers share the tile index just fetched */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_persistent_tc_knobs[] = TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_GROUP)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

namespace cg = cooperative_groups;

/**
 * @brief Persistent warp-specialized tensor-core GEMM: warpgroup 0 takes
 *        output tiles from @p next_tile and copies their K tiles into the
 *        ring, warpgroups 1 and 2 multiply them, tile after tile, until
 *        the counter passes the last tile.
 * @param M, N, K    problem size
 * @param A, B       inputs (M x K, K x N, BF16, row-major)
 * @param C          output (M x N, FP32)
 * @param next_tile  the tile counter; 0 at launch (the launcher resets it)
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_persistent_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                   float *__restrict__ C, int *__restrict__ next_tile)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = align1024(smem_raw); /* TC_STAGES x (A tile + B tile) */
    /* __shared__ objects are never constructed; make_pipeline() below
     * initializes the state's barriers, so nvcc's warning about skipping the
     * constructor does not apply here. */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, TC_STAGES> state;
#pragma nv_diag_default static_var_with_dynamic_init
    __shared__ int stage_tile[TC_STAGES]; /* which output tile stage s belongs to; -1: no more */
    __shared__ int fetched[2];            /* the producers' last two fetched tile indices */

    const int tiles_m = (M + TC_BM - 1) / TC_BM, tiles_n = (N + TC_BN - 1) / TC_BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + TC_BK - 1) / TC_BK;

    /* Roles go by whole warpgroups: setmaxnreg and wgmma both act on them. */
    const bool producer = threadIdx.x < TC_PRODUCERS;
    /* A partitioned pipeline: the stage barriers expect TC_PRODUCERS
     * commits and TC_CONSUMERS releases. Every thread of the block must
     * make it (it initializes the barriers and synchronizes them). */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state,
                                    producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);
    // ---- end of exercise 03.1 ----

    if (producer) {
        // [producer]
        warpgroup_set_registers<TC_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
        const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
        int s = 0; /* the stage the next acquire gets: the pipeline's order, tile after tile */
        for (int j = 0;; ++j) {
            /* One atomic per tile for the whole warpgroup, shared through
             * shared memory, as in kernel.cu. */
            TRACE_BEGIN(t_fetch);
            // ---- exercise 04.1: Take the next output tile from the queue ----
            if (threadIdx.x == 0) fetched[j & 1] = atomicAdd(next_tile, 1);
            named_barrier_sync(TC_BAR_FETCH, TC_PRODUCERS);
            const int t = fetched[j & 1];
            // stub: const int t = tiles; (void)fetched[0]; /* no tile: the producers stop at once */
            // ---- end of exercise 04.1 ----
            TRACE_END(t_fetch, TRACE_FETCH, t);
            if (t >= tiles) break;
            int tm, tn;
            grouped_tile_coords(t, tiles_m, tiles_n, TC_GROUP, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                TRACE_BEGIN(t_wait);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_acquire(); /* wait until the consumers released stage s */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
                TRACE_BEGIN(t_issue);
                if (threadIdx.x == 0) stage_tile[s] = t;
                issue_tile_tc<TC_PRODUCERS>(stage_a_tc(ring, s), stage_b_tc(ring, s), A, B, M, N, K, tm * TC_BM,
                                            tn * TC_BN, kt * TC_BK, a_vec, b_vec, threadIdx.x);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_commit(); /* stage s is full once these copies land */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_issue, TRACE_ISSUE, t);
                s = (s + 1) % TC_STAGES;
            }
        }
        /* One more stage with no data tells the consumers to stop. */
        // ---- exercise 04.2: Tell the consumers that the queue is empty ----
        pipe.producer_acquire();
        if (threadIdx.x == 0) stage_tile[s] = -1;
        pipe.producer_commit();
        // ---- end of exercise 04.2 ----
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
        int s = 0;
        for (;;) {
            TRACE_BEGIN(t_first);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
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
            float acc[TC_ACC] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                if (kt > 0) {
                    TRACE_BEGIN(t_wait);
                    // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                    pipe.consumer_wait(); /* stage kt of tile t has landed */
                    // ---- end of exercise 03.3 ----
                    TRACE_END(t_wait, TRACE_WAIT_FULL, t);
                }
                TRACE_BEGIN(t_math);
                mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
                mma_wait(acc); /* the tensor cores are done reading stage s */
                TRACE_END(t_math, TRACE_COMPUTE, t);
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_release(); /* the producers may refill stage s */
                // ---- end of exercise 03.3 ----
                s = (s + 1) % TC_STAGES;
            }
            int tm, tn;
            grouped_tile_coords(t, tiles_m, tiles_n, TC_GROUP, &tm, &tn);
            TRACE_BEGIN(t_store);
            store_tile_tc(C, acc, tm * TC_BM, tn * TC_BN, M, N, wg, wg_thread);
            TRACE_END(t_store, TRACE_STORE, t);
        }
        // [consumer]
    }
}
// [kernel]

/* The tile counter, and the grid size from the occupancy API (both once). */
static int *tile_counter;
static int resident_blocks;

extern "C" cudaError_t launch_gemm_persistent_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                                 float *C, cudaStream_t stream)
{
    cudaError_t err;
    if (tile_counter == NULL) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)gemm_persistent_tc, TC_SMEM)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_persistent_tc, TC_WS_THREADS,
                                                                 TC_SMEM)) != cudaSuccess ||
            (err = cudaMalloc((void **)&tile_counter, sizeof(int))) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
        resident_blocks = per_sm * sms;
    }
    const int tiles = ((M + TC_BM - 1) / TC_BM) * ((N + TC_BN - 1) / TC_BN);
    const int grid = tiles < resident_blocks ? tiles : resident_blocks;
    /* Every launch starts the queue at tile 0, ordered in the stream between launches. */
    // ---- exercise 04.3: Start every launch's queue at tile 0 ----
    err = cudaMemsetAsync(tile_counter, 0, sizeof(int), stream);
    if (err != cudaSuccess) return err;
    // ---- end of exercise 04.3 ----
    gemm_persistent_tc<<<grid, TC_WS_THREADS, TC_SMEM, stream>>>(M, N, K, A, B, C, tile_counter);
    return cudaGetLastError();
}
SMEM_REPORT(persistent_tc, TC_SMEM)
