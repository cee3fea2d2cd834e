/**
 * @file 03_warp_specialized/kernel_tc.cu
 * @brief Chapter 03 on the tensor cores: warp_specialized_tc, chapter 02's
 *        double_buffer_tc with its roles split.
 *
 * A producer warpgroup only copies tiles into the ring, two consumer
 * warpgroups only run wgmma on them, and they hand stages over through a
 * partitioned `cuda::pipeline`, as kernel.cu's warps do. Once the roles are
 * whole warpgroups each can have the registers it needs: `setmaxnreg`
 * (regs.cuh) moves them from the producers to the consumers.
 *
 * Parent: 02_double_buffer/kernel_tc.cu. Knobs: make help. Built for sm_80 and later.
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
#include "regs.cuh" /* LAUNCH_REGS(), CHECK_REG_SPLIT(), warpgroup_set_registers() */

#if !defined(TC_STAGES) || !defined(TC_PRODUCER_REGS) || !defined(TC_CONSUMER_REGS)
#error "TC_STAGES TC_PRODUCER_REGS TC_CONSUMER_REGS: set by the chapter's Makefile (make help lists them); build with make"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_warp_specialized_tc_knobs[] = TC_TILE_KNOBS KNOB(TC_STAGES)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

namespace cg = cooperative_groups;

/**
 * @brief Warp-specialized tensor-core GEMM: warpgroup 0 copies tiles into
 *        the ring, warpgroups 1 and 2 multiply them into the block's
 *        TC_BM x TC_BN tile of C.
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_warp_specialized_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
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

    const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN;
    const int tiles = (K + TC_BK - 1) / TC_BK;

    /* Roles go by whole warpgroups: setmaxnreg and wgmma both act on them. */
    const bool producer = threadIdx.x < TC_PRODUCERS;
    /* A partitioned pipeline: the stage barriers expect TC_PRODUCERS
     * commits and TC_CONSUMERS releases. Every thread of the block must
     * make it (it initializes the barriers and synchronizes them). */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    // hint: as in kernel.cu: make_pipeline()'s third argument, this thread's role.
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state,
                                    producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);
    // ---- end of exercise 03.1 ----

    if (producer) {
        // [producer]
        warpgroup_set_registers<TC_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
        const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
        for (int kt = 0; kt < tiles; ++kt) {
            const int s = kt % TC_STAGES;
            TRACE_BEGIN(t_wait);
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            // hint: as in kernel.cu, around issue_tile_tc().
            pipe.producer_acquire(); /* wait until the consumers released stage s */
            // ---- end of exercise 03.2 ----
            TRACE_END(t_wait, TRACE_WAIT_EMPTY, kt);
            TRACE_BEGIN(t_issue);
            issue_tile_tc<TC_PRODUCERS>(stage_a_tc(ring, s), stage_b_tc(ring, s), A, B, M, N, K, m0, n0,
                                        kt * TC_BK, a_vec, b_vec, threadIdx.x);
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            pipe.producer_commit(); /* stage s is full once these copies land */
            // ---- end of exercise 03.2 ----
            TRACE_END(t_issue, TRACE_ISSUE, kt);
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, t = threadIdx.x % WG_THREADS;
        float acc[TC_ACC] = {};
        for (int kt = 0; kt < tiles; ++kt) {
            const int s = kt % TC_STAGES;
            TRACE_BEGIN(t_wait);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            // hint: as in kernel.cu, around the multiply.
            pipe.consumer_wait(); /* tile kt has landed */
            // ---- end of exercise 03.3 ----
            TRACE_END(t_wait, TRACE_WAIT_FULL, kt);
            TRACE_BEGIN(t_math);
            mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
            mma_wait(acc); /* the tensor cores are done reading stage s */
            TRACE_END(t_math, TRACE_COMPUTE, kt);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            pipe.consumer_release(); /* the producers may refill stage s */
            // ---- end of exercise 03.3 ----
        }
        TRACE_BEGIN(t_store);
        store_tile_tc(C, acc, m0, n0, M, N, wg, t);
        TRACE_END(t_store, TRACE_STORE, -1);
        // [consumer]
    }
}
// [kernel]

extern "C" cudaError_t launch_gemm_warp_specialized_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                                       float *C, cudaStream_t stream)
{
    const cudaError_t err = smem_opt_in((const void *)gemm_warp_specialized_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + TC_BN - 1) / TC_BN, (M + TC_BM - 1) / TC_BM);
    gemm_warp_specialized_tc<<<grid, TC_WS_THREADS, TC_SMEM, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(warp_specialized_tc, TC_SMEM)
