/**
 * @file 02_double_buffer/kernel.cu
 * @brief Chapter 02: gemm_double_buffer, chapter 01's gemm_blocked with its
 *        tile loads made asynchronous through a STAGES-deep ring.
 *
 * Each thread issues `cuda::memcpy_async` copies (`cp.async`) that land in
 * shared memory without passing through registers, and a `cuda::pipeline`
 * tracks which stage has landed, so the next tiles' copies run while the
 * current one is multiplied (STAGES = 2: double buffering).
 *
 * Parent: 01_naive/kernel.cu. Knobs: make help.
 */

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(MIN_BLOCKS) || !defined(STAGES)
#error "BM BN BK MIN_BLOCKS STAGES: set by 02_double_buffer/Makefile (make help lists them); build with make"
#endif

#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */


extern "C" const char gemm_double_buffer_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES);

namespace cg = cooperative_groups;

/**
 * @brief Register-blocked GEMM whose tiles arrive through a STAGES-deep
 *        `cuda::pipeline`: the copies of the next tiles run while the
 *        current one is multiplied.
 */
// [kernel]
__global__ void __launch_bounds__(BLOCKED_THREADS, MIN_BLOCKS)
gemm_double_buffer(int M, int N, int K, const float *__restrict__ A,
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

    /* Every thread of the block both produces (issues copies) and consumes. */
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);

    const int tid = threadIdx.x;
    const int tx = tid % (BN / TN), ty = tid / (BN / TN);
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const bool b_vec = rows_aligned16(B, N);
    const int tiles = (K + BK - 1) / BK;
    float acc[TM][TN] = {};

    int fetched = 0; /* tiles whose copies have been issued */
    for (int t = 0; t < tiles; ++t) {
        TRACE_BEGIN(t_issue);
        /* Keep up to STAGES tiles in flight: on the first pass this fills
         * the ring (the prologue), then it refills the stage that tile t-1
         * released. producer_acquire() waits until every thread has
         * released that stage. Only real tiles are committed, so every
         * committed stage is waited for below before the kernel ends. */
        for (; fetched < tiles && fetched < t + STAGES; ++fetched) {
            // ---- exercise 02.1: Start the copies of tile `fetched` into its stage ----
            // hint: the tile goes to stage fetched % STAGES; take the stage from the pipeline
            // hint: (producer_acquire), start this thread's asynchronous copies with
            // hint: issue_tile(), and close the batch (producer_commit).
            const int s = fetched % STAGES;
            pipe.producer_acquire();
            issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, m0, n0, fetched * BK,
                       b_vec, tid, BLOCKED_THREADS, pipe);
            pipe.producer_commit();
            // ---- end of exercise 02.1 ----
        }
        TRACE_END(t_issue, TRACE_ISSUE, t);
        const int s = t % STAGES;
        TRACE_BEGIN(t_wait);
        // ---- exercise 02.2: Wait for tile t, and give its stage back when done ----
        // hint: the oldest committed batch is tile t: wait for it before computing, and
        // hint: release the stage after, so that a later tile can be copied into it.
        pipe.consumer_wait(); /* tile t has landed: every thread's copies into stage s */
        // ---- end of exercise 02.2 ----
        TRACE_END(t_wait, TRACE_WAIT_FULL, t);
        TRACE_BEGIN(t_math);
        compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
        TRACE_END(t_math, TRACE_COMPUTE, t);
        // ---- exercise 02.2: Wait for tile t, and give its stage back when done ----
        pipe.consumer_release(); /* this thread is done reading stage s */
        // ---- end of exercise 02.2 ----
    }
    TRACE_BEGIN(t_store);
    store_tile(C, acc, m0, n0, M, N, tx, ty);
    TRACE_END(t_store, TRACE_STORE, -1);
}
// [kernel]

// [launch]
extern "C" cudaError_t launch_gemm_double_buffer(int M, int N, int K, const float *A,
                                                 const float *B, float *C, cudaStream_t stream)
{
    const size_t smem = RING_BYTES;
    /* Above 48 KB a kernel must opt in to more dynamic shared memory, or the
     * launch fails; the limit is the device's, not this kernel's choice. */
    const cudaError_t err = smem_opt_in((const void *)gemm_double_buffer, smem);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_double_buffer<<<grid, BLOCKED_THREADS, smem, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(double_buffer, RING_BYTES)
// [launch]
