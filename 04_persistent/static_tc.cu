/**
 * @file 04_persistent/static_tc.cu
 * @brief Chapter 04 on the tensor cores, a second step: persistent_static_tc,
 *        persistent_tc with a fixed tile order instead of the queue.
 *
 * Block b takes tiles b, b + grid, b + 2 grid, ... of the grouped order: no
 * counter, no ticket and no stop stage, since both roles know the tiles in
 * advance. With tiles of equal cost the queue has little to balance; what
 * a fixed order adds is that blocks can agree on their tiles without
 * talking, which chapter 06's clusters need (its kernel_tc.cu builds on
 * this file).
 *
 * Parent: kernel_tc.cu. Knobs: make help. Built for sm_80 and later.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
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
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_persistent_static_tc_knobs[] = TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_GROUP)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

namespace cg = cooperative_groups;

/**
 * @brief Persistent warp-specialized tensor-core GEMM in a fixed order:
 *        block b's warpgroup 0 copies the K tiles of output tiles b,
 *        b + gridDim.x, ... into the ring, warpgroups 1 and 2 multiply them.
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_persistent_static_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                          float *__restrict__ C)
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

    const int tiles_m = (M + TC_BM - 1) / TC_BM, tiles_n = (N + TC_BN - 1) / TC_BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + TC_BK - 1) / TC_BK;

    /* Roles go by whole warpgroups: setmaxnreg and wgmma both act on them. */
    const bool producer = threadIdx.x < TC_PRODUCERS;
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
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            grouped_tile_coords(t, tiles_m, tiles_n, TC_GROUP, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                TRACE_BEGIN(t_wait);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_acquire(); /* wait until the consumers released stage s */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
                TRACE_BEGIN(t_issue);
                issue_tile_tc<TC_PRODUCERS>(stage_a_tc(ring, s), stage_b_tc(ring, s), A, B, M, N, K, tm * TC_BM,
                                            tn * TC_BN, kt * TC_BK, a_vec, b_vec, threadIdx.x);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_commit(); /* stage s is full once these copies land */
                // ---- end of exercise 03.2 ----
                TRACE_END(t_issue, TRACE_ISSUE, t);
                s = (s + 1) % TC_STAGES;
            }
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
        int s = 0;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            float acc[TC_ACC] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                TRACE_BEGIN(t_wait);
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_wait(); /* stage kt of tile t has landed */
                // ---- end of exercise 03.3 ----
                TRACE_END(t_wait, TRACE_WAIT_FULL, t);
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

/* The grid size from the occupancy API (asked once). */
static int resident_blocks;

extern "C" cudaError_t launch_gemm_persistent_static_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                                        float *C, cudaStream_t stream)
{
    cudaError_t err;
    if (resident_blocks == 0) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)gemm_persistent_static_tc, TC_SMEM)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_persistent_static_tc, TC_WS_THREADS,
                                                                 TC_SMEM)) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
        resident_blocks = per_sm * sms;
    }
    const int tiles = ((M + TC_BM - 1) / TC_BM) * ((N + TC_BN - 1) / TC_BN);
    const int grid = tiles < resident_blocks ? tiles : resident_blocks;
    gemm_persistent_static_tc<<<grid, TC_WS_THREADS, TC_SMEM, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(persistent_static_tc, TC_SMEM)
