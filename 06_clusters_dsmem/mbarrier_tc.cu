/**
 * @file 06_clusters_dsmem/mbarrier_tc.cu
 * @brief Chapter 06 on the tensor cores, the step before the lesson:
 *        mbarrier_tc, chapter 04's persistent_static_tc with its stages
 *        handed over through mbarriers of its own instead of a
 *        `cuda::pipeline`.
 *
 * Each stage gets a full barrier, on which every producer thread arrives
 * once its own copies have landed (`cp.async.mbarrier.arrive`), and an
 * empty barrier, on which one lane of every consumer warp arrives once the
 * warp is done with the stage; a K step's parity tells a waiter which
 * round of the ring it waits for. This is the pipeline the cluster lesson
 * needs: a barrier that other blocks can arrive on (kernel_tc.cu).
 *
 * Parent: 04_persistent/static_tc.cu (make diff-mbarrier_tc). Knobs: make help.
 */
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "../01_naive/blocked_tc.cuh" /* the tile, mma_tile(), store_tile_tc() */
#include "../02_double_buffer/async_copy_tc.cuh" /* issue_tile_tc(), stage_a_tc(), stage_b_tc() */
#include "../03_warp_specialized/regs.cuh" /* LAUNCH_REGS(), CHECK_REG_SPLIT(), warpgroup_set_registers() */
#include "../04_persistent/tile_order.cuh" /* grouped_tile_coords() */
#include "cluster.cuh" /* mbarriers */

#if !defined(TC_STAGES) || !defined(TC_GROUP) || !defined(TC_PRODUCER_REGS) || !defined(TC_CONSUMER_REGS)
#error "TC_STAGES TC_GROUP TC_PRODUCER_REGS TC_CONSUMER_REGS: set by the chapter's Makefile (make help lists them)"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_mbarrier_tc_knobs[] = TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_GROUP)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

/**
 * @brief Persistent warp-specialized tensor-core GEMM in a fixed order, its
 *        stages handed over through full and empty mbarriers: block b's
 *        warpgroup 0 copies the K tiles of output tiles b, b + gridDim.x,
 *        ... into the ring, warpgroups 1 and 2 multiply them.
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_mbarrier_tc(int M, int N, int K, const uint16_t *__restrict__ A, const uint16_t *__restrict__ B,
                 float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = align1024(smem_raw); /* TC_STAGES x (A tile + B tile) */
    __shared__ uint64_t full[TC_STAGES];  /* stage s holds its K tile: every producer's copies landed */
    __shared__ uint64_t empty[TC_STAGES]; /* stage s may be refilled: every consumer warp arrived */

    const int tiles_m = (M + TC_BM - 1) / TC_BM, tiles_n = (N + TC_BN - 1) / TC_BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + TC_BK - 1) / TC_BK;

    // [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < TC_STAGES; ++s) {
            mbar_init(&full[s], TC_PRODUCERS); /* one arrival per producer thread, once its copies landed */
            mbar_init(&empty[s], TC_CONSUMER_WARPS);
        }
        fence_mbar_init();
    }
    /* No thread arrives on, or waits for, a barrier that does not exist yet. */
    __syncthreads();
    // [init]

    if (threadIdx.x < TC_PRODUCERS) {
        // [producer]
        warpgroup_set_registers<TC_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
        const bool a_vec = rows_aligned16_bf16(A, K), b_vec = rows_aligned16_bf16(B, N);
        int it = 0; /* K steps issued so far, over all tiles: stage it % TC_STAGES */
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            grouped_tile_coords(t, tiles_m, tiles_n, TC_GROUP, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const int s = it % TC_STAGES;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&empty[s], ((it / TC_STAGES) & 1) ^ 1); /* every consumer warp read it */
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, kt);
                TRACE_BEGIN(t_issue);
                issue_tile_tc<TC_PRODUCERS>(stage_a_tc(ring, s), stage_b_tc(ring, s), A, B, M, N, K, tm * TC_BM,
                                            tn * TC_BN, kt * TC_BK, a_vec, b_vec, threadIdx.x);
                mbar_arrive_on_copies(&full[s]); /* counts once this thread's copies have landed */
                TRACE_END(t_issue, TRACE_ISSUE, kt);
            }
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
        int it = 0;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            grouped_tile_coords(t, tiles_m, tiles_n, TC_GROUP, &tm, &tn);
            float acc[TC_ACC] = {};
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const int s = it % TC_STAGES;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&full[s], (it / TC_STAGES) & 1); /* every producer's copies landed */
                TRACE_END(t_wait, TRACE_WAIT_FULL, kt);
                TRACE_BEGIN(t_math);
                mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
                mma_wait(acc); /* the tensor cores are done reading stage s */
                TRACE_END(t_math, TRACE_COMPUTE, kt);
                /* Release stage s, one arrival per warp. */
                if (wg_thread % 32 == 0) mbar_arrive_local(&empty[s]);
            }
            TRACE_BEGIN(t_store);
            store_tile_tc(C, acc, tm * TC_BM, tn * TC_BN, M, N, wg, wg_thread);
            TRACE_END(t_store, TRACE_STORE, -1);
        }
        // [consumer]
    }
}
// [kernel]

/* The grid size from the occupancy API (asked once). */
static int resident_blocks;

extern "C" cudaError_t launch_gemm_mbarrier_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                               cudaStream_t stream)
{
    cudaError_t err;
    if (resident_blocks == 0) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)gemm_mbarrier_tc, TC_SMEM)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_mbarrier_tc, TC_WS_THREADS,
                                                                 TC_SMEM)) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
        resident_blocks = per_sm * sms;
    }
    const int tiles = ((M + TC_BM - 1) / TC_BM) * ((N + TC_BN - 1) / TC_BN);
    const int grid = tiles < resident_blocks ? tiles : resident_blocks;
    gemm_mbarrier_tc<<<grid, TC_WS_THREADS, TC_SMEM, stream>>>(M, N, K, A, B, C);
    return cudaGetLastError();
}
SMEM_REPORT(mbarrier_tc, TC_SMEM)
