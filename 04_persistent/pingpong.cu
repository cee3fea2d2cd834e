/**
 * @file 04_persistent/pingpong.cu
 * @brief Chapter 04's "ping-pong" variant (CUTLASS's name for the
 *        schedule): the persistent GEMM with two consumer groups that take
 *        the tiles in turn, so that one group's epilogue overlaps the other
 *        group's main loop.
 *
 * The producer warps fetch tiles from the queue as in kernel.cu and fill
 * two rings, tile j into ring j % 2; consumer group g computes the tiles of
 * ring g. The producers issue one tile after the other, so a group starts
 * its tile only when the producers have issued all of the other group's:
 * the two groups' main loops run one after the other, and each group's
 * epilogue (and its wait for the next tile) runs during the other's main
 * loop. Each group is 4 warps computing a 64 x 128 tile (the same 8 x 8
 * per thread as chapter 01's compute step); the two groups have as many
 * threads, and the same registers per thread, as kernel.cu's 8 consumer
 * warps. Its own file: the tile (BM = 64) differs from the chapter's BM;
 * BN, BK, PRODUCER_WARPS and GROUP are the chapter's knobs, and its own
 * knob PINGPONG_STAGES (even) is split between the two rings.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "knobs.h"              /* BN BK PRODUCER_WARPS GROUP (the Makefile sets them) */
#undef BM
#define BM 64 /**< rows of a consumer group's tile (the chapter's BM knob: the lesson's 128) */
#include "../01_naive/blocked.cuh" /* compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "../03_warp_specialized/roles.cuh" /* named_barrier_sync() */
#include "tile_order.cuh" /* tile_coords() */

#if !defined(PINGPONG_STAGES)
#error "PINGPONG_STAGES: set by 04_persistent/Makefile (make help lists it); build with make"
#endif
#define RING_STAGES (PINGPONG_STAGES / 2) /**< stages of each group's ring */
#define PP_SMEM ((size_t)PINGPONG_STAGES * STAGE_FLOATS * sizeof(float)) /**< dynamic shared memory: both rings */
#define PP_THREADS (PRODUCER_THREADS + 2 * CONSUMER_THREADS) /**< threads per block */
static_assert(PINGPONG_STAGES % 2 == 0 && RING_STAGES >= 2 && PINGPONG_STAGES <= 8,
              "PINGPONG_STAGES must be even, 4..8: 2 stages per ring at least");
static_assert(PP_THREADS <= 1024, "too many threads per block");

extern "C" const char gemm_persistent_pingpong_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(PINGPONG_STAGES) " (two rings)" KNOB(PRODUCER_WARPS) KNOB(GROUP)
    " consumer_groups=2";

/**
 * @brief The producers and consumer group @p g, as the group argument of
 *        `cuda::make_pipeline()` (as roles.cuh's leading_threads, but the
 *        consumers are threads PRODUCER_THREADS + g x CONSUMER_THREADS on):
 *        producers first, then the group's consumers; sync() is named
 *        barrier 3 + g over those threads.
 *
 * The producers and the consumers create the ring at different places in
 * the code, so sync() is the non-aligned `barrier.sync`: `bar.sync` (that is,
 * `barrier.sync.aligned`, roles.cuh) requires every thread to execute the
 * same instruction, and synccheck reports it as divergent here.
 */
struct ring_threads {
    int g; /**< the consumer group: 0 or 1 */
    /** @brief number of threads in the group */
    __device__ unsigned long long size() const { return PRODUCER_THREADS + CONSUMER_THREADS; }
    /** @brief this thread's rank in the group */
    __device__ unsigned long long thread_rank() const
    {
        return threadIdx.x < PRODUCER_THREADS ? threadIdx.x : threadIdx.x - g * CONSUMER_THREADS;
    }
    /** @brief barrier over the group's threads */
    __device__ void sync() const
    {
        asm volatile("barrier.sync %0, %1;" ::"r"(3 + g), "r"(PRODUCER_THREADS + CONSUMER_THREADS) : "memory");
    }
};

/** @brief The persistent GEMM with two consumer groups taking tiles in turn. */
// [pingpong]
__global__ void __launch_bounds__(PP_THREADS, 1)
gemm_persistent_pingpong(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, int *__restrict__ next_tile)
{
    extern __shared__ __align__(16) float smem[]; /* ring 0's stages, then ring 1's */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, RING_STAGES> state[2];
#pragma nv_diag_default static_var_with_dynamic_init
    __shared__ int stage_tile[2][RING_STAGES]; /* the tile a ring's stage belongs to; -1: no more */
    __shared__ int fetched[2];

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + BK - 1) / BK;
    const bool producer = threadIdx.x < PRODUCER_THREADS;

    if (producer) {
        /* the producers take part in both rings */
        auto ring0 = cuda::make_pipeline(ring_threads{0}, &state[0], cuda::pipeline_role::producer);
        auto ring1 = cuda::make_pipeline(ring_threads{1}, &state[1], cuda::pipeline_role::producer);
        const bool b_vec = rows_aligned16(B, N);
        int s[2] = {0, 0}; /* the next stage of each ring */
        for (int j = 0;; ++j) {
            // ---- exercise 04.1: Take the next output tile from the queue ----
            // hint: as in kernel.cu: one ticket per tile, handed to the other producers.
            if (threadIdx.x == 0) fetched[j & 1] = atomicAdd(next_tile, 1);
            named_barrier_sync(BAR_FETCH, PRODUCER_THREADS);
            const int t = fetched[j & 1];
            // stub: const int t = tiles; (void)fetched[0]; /* no tile: the producers stop at once */
            // ---- end of exercise 04.1 ----
            if (t >= tiles) break;
            const int r = j & 1; /* tile j goes to ring j % 2, consumer group j % 2 */
            auto &ring = r ? ring1 : ring0;
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                ring.producer_acquire();
                if (threadIdx.x == 0) stage_tile[r][s[r]] = t;
                issue_tile(stage_a(smem, r * RING_STAGES + s[r]), stage_b(smem, r * RING_STAGES + s[r]), A, B, M, N,
                           K, tm * BM, tn * BN, kt * BK, b_vec, threadIdx.x, PRODUCER_THREADS, ring);
                ring.producer_commit();
                s[r] = (s[r] + 1) % RING_STAGES;
            }
        }
        /* Both groups stop at their ring's next stage. */
        ring0.producer_acquire();
        if (threadIdx.x == 0) stage_tile[0][s[0]] = -1;
        ring0.producer_commit();
        ring1.producer_acquire();
        if (threadIdx.x == 0) stage_tile[1][s[1]] = -1;
        ring1.producer_commit();
    } else {
        const int g = (threadIdx.x - PRODUCER_THREADS) / CONSUMER_THREADS; /* whole warps: no divergence */
        const int ctid = threadIdx.x - PRODUCER_THREADS - g * CONSUMER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        auto ring = cuda::make_pipeline(ring_threads{g}, &state[g], cuda::pipeline_role::consumer);
        int s = 0;
        for (;;) {
            ring.consumer_wait();
            const int t = stage_tile[g][s];
            if (t < 0) {
                ring.consumer_release();
                break;
            }
            float acc[TM][TN] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                if (kt > 0) ring.consumer_wait();
                compute_tile(acc, stage_a(smem, g * RING_STAGES + s), stage_b(smem, g * RING_STAGES + s), tx, ty);
                ring.consumer_release();
                s = (s + 1) % RING_STAGES;
            }
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            /* the other group's main loop runs meanwhile */
            store_tile(C, acc, tm * BM, tn * BN, M, N, tx, ty);
        }
    }
}
// [pingpong]

static int *pingpong_counter;
static int pingpong_blocks;

extern "C" cudaError_t launch_gemm_persistent_pingpong(int M, int N, int K, const float *A, const float *B,
                                                       float *C, cudaStream_t stream)
{
    const size_t smem = PP_SMEM;
    cudaError_t err;
    if (pingpong_counter == NULL) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)gemm_persistent_pingpong, smem)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_persistent_pingpong, PP_THREADS,
                                                                 smem)) != cudaSuccess ||
            (err = cudaMalloc((void **)&pingpong_counter, sizeof(int))) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration;
        pingpong_blocks = per_sm * sms;
    }
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const int grid = tiles < pingpong_blocks ? tiles : pingpong_blocks;
    if ((err = cudaMemsetAsync(pingpong_counter, 0, sizeof(int), stream)) != cudaSuccess) return err;
    gemm_persistent_pingpong<<<grid, PP_THREADS, smem, stream>>>(M, N, K, A, B, C, pingpong_counter);
    return cudaGetLastError();
}
SMEM_REPORT(persistent_pingpong, PP_SMEM)
