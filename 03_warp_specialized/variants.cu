/**
 * @file 03_warp_specialized/variants.cu
 * @brief Chapter 03's measured alternative: the lesson kernel plus a third
 *        role, storer warps that write C.
 *
 * gemm_warp_specialized_storer: the consumers stage their accumulators in a
 * C tile in shared memory, arrive on a `cuda::barrier` and leave; STORER_WARPS
 * extra warps wait on it and copy the tile to C. Here a block computes one
 * tile, so nothing can overlap the storers' work: the page measures why it
 * does not pay, and chapter 04 (a block that goes on to its next tile) where
 * it does.
 */
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "knobs.h"              /* BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS, as kernel.cu */
#if !defined(STORER_WARPS)
#error "STORER_WARPS: set by 03_warp_specialized/Makefile (make help lists them); build with make"
#endif

#include "../01_naive/blocked.cuh" /* load4_or_zero(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "roles.cuh" /* leading_threads, stage_c(), write_staged_c() */

#define STORER_THREADS (STORER_WARPS * 32)     /**< threads that write C */
#define PIPE_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads of the pipeline */
#define STORER_BLOCK_THREADS (PIPE_THREADS + STORER_THREADS) /**< threads per block */
#define STORER_SMEM (RING_BYTES + (size_t)BM * BN * sizeof(float)) /**< the ring and the staged C tile */
static_assert(STORER_WARPS >= 1 && STORER_BLOCK_THREADS <= 1024, "1 or more storer warps, at most 1024 threads");

extern "C" const char gemm_warp_specialized_storer_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES) KNOB(PRODUCER_WARPS)
    KNOB(STORER_WARPS);

/**
 * @brief Warp-specialized GEMM with three roles: warps 0 .. PRODUCER_WARPS-1
 *        copy tiles into the ring, the next 8 warps compute the block's
 *        BM x BN tile of C and stage it in shared memory, and the last
 *        STORER_WARPS warps write it to C.
 */
__global__ void __launch_bounds__(STORER_BLOCK_THREADS, MIN_BLOCKS)
gemm_warp_specialized_storer(int M, int N, int K, const float *__restrict__ A,
                             const float *__restrict__ B, float *__restrict__ C)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), staged C */
    /* Not constructed (no __shared__ object is); make_pipeline() and init() initialize them. */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    /* Completes when every consumer has staged its part of C (and the storers arrived). */
    __shared__ cuda::barrier<cuda::thread_scope_block> c_full;
#pragma nv_diag_default static_var_with_dynamic_init

    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;
    float(*Cs)[BN] = reinterpret_cast<float(*)[BN]>(smem + STAGES * STAGE_FLOATS);
    if (threadIdx.x == 0) init(&c_full, CONSUMER_THREADS + STORER_THREADS);
    __syncthreads(); /* the barrier is initialized before anyone uses it */
    // [storer]
    if (threadIdx.x >= PIPE_THREADS) { /* storer warps: not part of the pipeline */
        c_full.arrive_and_wait(); /* C is staged */
        write_staged_c(C, Cs, m0, n0, M, N, threadIdx.x - PIPE_THREADS, STORER_THREADS);
        return;
    }
    // [storer]

    /* Roles go by whole warps, so no warp ever diverges between them. */
    const bool producer = threadIdx.x < PRODUCER_THREADS;
    /* The pipeline's group is the producers and consumers only: the storers
     * never call make_pipeline(), so its set-up barrier is a named one over
     * the first PIPE_THREADS threads, not __syncthreads(). */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    // hint: as in kernel.cu: each thread's role in the partitioned pipeline.
    auto pipe = cuda::make_pipeline(leading_threads{PIPE_THREADS, BAR_PIPE}, &state,
                                    producer ? cuda::pipeline_role::producer
                                             : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(leading_threads{PIPE_THREADS, BAR_PIPE}, &state);
    // ---- end of exercise 03.1 ----

    if (producer) {
        const bool b_vec = rows_aligned16(B, N);
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            // hint: as in kernel.cu: wait for a free stage before the copies, commit it after them.
            pipe.producer_acquire();
            // ---- end of exercise 03.2 ----
            issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, m0, n0, t * BK, b_vec,
                       threadIdx.x, PRODUCER_THREADS, pipe);
            // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
            pipe.producer_commit();
            // ---- end of exercise 03.2 ----
        }
    } else {
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            // hint: as in kernel.cu: wait for each stage before reading it, release it after.
            pipe.consumer_wait();
            // ---- end of exercise 03.3 ----
            compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            pipe.consumer_release();
            // ---- end of exercise 03.3 ----
        }
        // [consumer_hand_off]
        stage_c(Cs, acc, tx, ty); /* the storers write it out; the consumers are done */
        (void)c_full.arrive();
        // [consumer_hand_off]
    }
}

extern "C" cudaError_t launch_gemm_warp_specialized_storer(int M, int N, int K, const float *A,
                                                           const float *B, float *C, cudaStream_t stream)
{
    const size_t smem = STORER_SMEM;
    const cudaError_t err = smem_opt_in((const void *)gemm_warp_specialized_storer, smem);
    if (err != cudaSuccess) return err;
    const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_warp_specialized_storer<<<grid, STORER_BLOCK_THREADS, smem, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(warp_specialized_storer, STORER_SMEM)
