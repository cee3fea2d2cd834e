/**
 * @file 03_warp_specialized/kernel.cu
 * @brief Chapter 03: gemm_warp_specialized, chapter 02's ring with its
 *        roles split between producer and consumer warps.
 *
 * PRODUCER_WARPS extra warps only copy tiles into the ring; the consumer
 * warps only run chapter 01's compute step on them. They hand stages over
 * through a partitioned `cuda::pipeline`, never through __syncthreads().
 * variants.cu measures a third role, storer warps that write C.
 *
 * Parent: 02_double_buffer/kernel.cu. Knobs: make help.
 */

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "knobs.h" /* BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS (the Makefile sets them) */
#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */

#define WS_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
static_assert(WS_THREADS <= 1024, "too many threads per block");

extern "C" const char gemm_warp_specialized_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES) KNOB(PRODUCER_WARPS);

namespace cg = cooperative_groups;

/**
 * @brief Warp-specialized GEMM: warps 0 .. PRODUCER_WARPS-1 copy tiles into
 *        the ring, the other 8 warps compute the block's BM x BN tile of C.
 */
// [kernel]
__global__ void __launch_bounds__(WS_THREADS, MIN_BLOCKS)
gemm_warp_specialized(int M, int N, int K, const float *__restrict__ A,
                      const float *__restrict__ B, float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile) */
    /* __shared__ objects are never constructed; make_pipeline() below
     * initializes the state's barriers, so nvcc's warning about skipping the
     * constructor does not apply here. */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
#pragma nv_diag_default static_var_with_dynamic_init

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;

    /* Roles go by whole warps, so no warp ever diverges between them. */
    const bool producer = threadIdx.x < PRODUCER_THREADS;
    /* A partitioned pipeline: the stage barriers expect PRODUCER_THREADS
     * commits and CONSUMER_THREADS releases. Every thread of the block must
     * make it (it initializes the barriers and synchronizes them). */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    // hint: make_pipeline() takes a third argument, this thread's pipeline_role; then a
    // hint: stage is full after PRODUCER_THREADS commits and free after CONSUMER_THREADS releases.
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state,
                                    producer ? cuda::pipeline_role::producer
                                             : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);
    // ---- end of exercise 03.1 ----

    if (producer) {
        // [producer]
        const bool b_vec = rows_aligned16(B, N);
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            TRACE_BEGIN(t_wait);
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            // hint: before copying into stage s, wait until the consumers have released it;
            // hint: after issue_tile(), commit, so the stage counts as full once the copies land.
            pipe.producer_acquire(); /* wait until the consumers released stage s */
            // ---- end of exercise 03.2 ----
            TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
            TRACE_BEGIN(t_issue);
            issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, m0, n0, t * BK, b_vec,
                       threadIdx.x, PRODUCER_THREADS, pipe);
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            pipe.producer_commit(); /* stage s is full once these copies land */
            // ---- end of exercise 03.2 ----
            TRACE_END(t_issue, TRACE_ISSUE, t);
        }
        // [producer]
    } else {
        // [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            TRACE_BEGIN(t_wait);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            // hint: the mirror image of 03.2, on the consumer side of the same pipeline.
            pipe.consumer_wait(); /* tile t has landed */
            // ---- end of exercise 03.3 ----
            TRACE_END(t_wait, TRACE_WAIT_FULL, t);
            TRACE_BEGIN(t_math);
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            TRACE_END(t_math, TRACE_COMPUTE, t);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            pipe.consumer_release(); /* the producers may refill stage s */
            // ---- end of exercise 03.3 ----
        }
        TRACE_BEGIN(t_store);
        store_tile(C, acc, m0, n0, M, N, tx, ty);
        TRACE_END(t_store, TRACE_STORE, -1);
        // [consumer]
    }
}
// [kernel]

extern "C" cudaError_t launch_gemm_warp_specialized(int M, int N, int K, const float *A,
                                                    const float *B, float *C, cudaStream_t stream)
{
    const size_t smem = RING_BYTES;
    const cudaError_t err = smem_opt_in((const void *)gemm_warp_specialized, smem);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_warp_specialized<<<grid, WS_THREADS, smem, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(warp_specialized, RING_BYTES)
