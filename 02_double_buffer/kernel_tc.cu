/**
 * @file 02_double_buffer/kernel_tc.cu
 * @brief Chapter 02 on the tensor cores: double_buffer_tc, chapter 01's
 *        blocked_tc with its tile loads made asynchronous through a
 *        TC_STAGES-deep ring.
 *
 * As in kernel.cu: each thread issues `cp.async` copies straight into the
 * swizzled layout (async_copy_tc.cuh), and a `cuda::pipeline` tracks which
 * stage has landed, so the next tiles' copies run while the tensor cores
 * multiply the current one.
 *
 * Parent: 01_naive/kernel_tc.cu. Knobs: make help. Built for sm_80 and later.
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
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */

extern "C" const char gemm_double_buffer_tc_knobs[] = TC_TILE_KNOBS KNOB(TC_STAGES);

namespace cg = cooperative_groups;

/**
 * @brief Tensor-core GEMM whose tiles arrive through a TC_STAGES-deep
 *        `cuda::pipeline`: the copies of the next tiles run while the
 *        current one is multiplied.
 */
// [kernel]
__global__ void __launch_bounds__(TC_CONSUMERS, 1)
gemm_double_buffer_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
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

    /* Every thread of the block both produces (issues copies) and consumes. */
    auto pipe = cuda::make_pipeline(cg::this_thread_block(), &state);

    const int wg = threadIdx.x / WG_THREADS, t = threadIdx.x % WG_THREADS;
    const int m0 = blockIdx.y * TC_BM, n0 = blockIdx.x * TC_BN;
    const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
    const int tiles = (K + TC_BK - 1) / TC_BK;
    float acc[TC_ACC] = {};

    int fetched = 0; /* tiles whose copies have been issued */
    for (int kt = 0; kt < tiles; ++kt) {
        TRACE_BEGIN(t_issue);
        /* Keep up to TC_STAGES tiles in flight, as kernel.cu does. */
        for (; fetched < tiles && fetched < kt + TC_STAGES; ++fetched) {
            // ---- exercise 02.1: Start the copies of tile `fetched` into its stage ----
            // hint: as in kernel.cu: the stage, producer_acquire(), this thread's copies
            // hint: (issue_tile_tc<TC_CONSUMERS>()), producer_commit().
            const int s = fetched % TC_STAGES;
            pipe.producer_acquire();
            issue_tile_tc<TC_CONSUMERS>(stage_a_tc(ring, s), stage_b_tc(ring, s), A, B, M, N, K, m0, n0, fetched * TC_BK,
                                        a_vec, b_vec, threadIdx.x);
            pipe.producer_commit();
            // ---- end of exercise 02.1 ----
        }
        TRACE_END(t_issue, TRACE_ISSUE, kt);
        const int s = kt % TC_STAGES;
        TRACE_BEGIN(t_wait);
        // ---- exercise 02.2: Wait for tile t, and give its stage back when done ----
        // hint: as in kernel.cu, around the multiply.
        pipe.consumer_wait(); /* tile kt has landed: every thread's copies into stage s */
        // ---- end of exercise 02.2 ----
        TRACE_END(t_wait, TRACE_WAIT_FULL, kt);
        TRACE_BEGIN(t_math);
        mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
        mma_wait(acc); /* the tensor cores are done reading stage s */
        TRACE_END(t_math, TRACE_COMPUTE, kt);
        // ---- exercise 02.2: Wait for tile t, and give its stage back when done ----
        pipe.consumer_release(); /* this thread is done with stage s */
        // ---- end of exercise 02.2 ----
    }
    TRACE_BEGIN(t_store);
    store_tile_tc(C, acc, m0, n0, M, N, wg, t);
    TRACE_END(t_store, TRACE_STORE, -1);
}
// [kernel]

extern "C" cudaError_t launch_gemm_double_buffer_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                                    float *C, cudaStream_t stream)
{
    const cudaError_t err = smem_opt_in((const void *)gemm_double_buffer_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + TC_BN - 1) / TC_BN, (M + TC_BM - 1) / TC_BM);
    gemm_double_buffer_tc<<<grid, TC_CONSUMERS, TC_SMEM, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(double_buffer_tc, TC_SMEM)
