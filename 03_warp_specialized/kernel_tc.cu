/**
 * @file 03_warp_specialized/kernel_tc.cu
 * @brief Chapter 03 on the tensor cores: warp_specialized_tc, chapter 02's
 *        double_buffer_tc with its roles split: a producer warpgroup only
 *        copies tiles into the ring, two consumer warpgroups only run
 *        wgmma on them, and they hand stages over through a partitioned
 *        `cuda::pipeline`, as kernel.cu's producer and consumer warps do.
 *
 * The roles also differ in what they need: a consumer thread holds TC_ACC
 * FP32 accumulators (128 for the default 128 x 256 tile), a producer
 * thread a few addresses. The block's register file is shared out evenly
 * at launch (65536 / 384 threads: at most 168 each), too few for the
 * consumers and far more than the producers use. `setmaxnreg` moves them:
 * the producer warpgroup gives its registers back (down to
 * TC_PRODUCER_REGS) and the consumer warpgroups take them (up to
 * TC_CONSUMER_REGS), which is what lets the consumers keep a tile twice as
 * wide as double_buffer_tc's without spilling. It is part of the technique
 * here: only once the roles are in separate warpgroups can each get the
 * registers its role needs.
 *
 * Knobs: TC_BN, TC_STAGES as in chapter 02.
 * Built for sm_90a only (make ARCH=sm_90a, the default on a Hopper GPU).
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

#if !defined(TC_STAGES)
#error "TC_STAGES: set by the chapter's Makefile (make help lists it); build with make"
#endif
static_assert(TC_STAGES >= 2 && TC_STAGES <= 8, "TC_STAGES must be 2..8");
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_LAUNCH_REGS 168   /**< registers per thread at launch: 65536 / 384, rounded down to a multiple of 8 */
#define TC_PRODUCER_REGS 40  /**< what a producer thread keeps */
#define TC_CONSUMER_REGS 232 /**< what a consumer thread gets */
static_assert(TC_LAUNCH_REGS == 65536 / TC_WS_THREADS / 8 * 8, "the even split of the register file at launch");
static_assert(TC_PRODUCERS * TC_PRODUCER_REGS + TC_CONSUMERS * TC_CONSUMER_REGS <= TC_WS_THREADS * TC_LAUNCH_REGS,
              "the split fits the registers the block was launched with (setmaxnreg.inc would wait forever)");

extern "C" const char gemm_warp_specialized_tc_knobs[] = KNOB(TC_BM) KNOB(TC_BN) KNOB(TC_BK) KNOB(TC_STAGES);

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
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(TC_PRODUCER_REGS));
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
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(TC_CONSUMER_REGS));
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
            wgmma_wait(0); /* the tensor cores are done reading stage s */
            wgmma_touch(acc, TC_ACC);
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
