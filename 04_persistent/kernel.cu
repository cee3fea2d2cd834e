/**
 * @file 04_persistent/kernel.cu
 * @brief Chapter 04: chapter 03's warp-specialized GEMM made persistent.
 *        About one block per SM stays resident and loops over output tiles
 *        that it takes from an atomic tile counter, in a grouped ("swizzled")
 *        order; its warps keep their roles for the whole kernel.
 *
 * In chapter 03 every block computed one tile and left: the producers'
 * ring started empty for every tile (pipeline fill), and the consumers'
 * stores of C were the last thing a block did (drain). Here a block's
 * producers start copying the next tile's stages while the consumers still
 * finish the current one, and with STORER_WARPS > 0 storer warps write
 * tile t while the consumers already compute tile t+1.
 *
 * Knobs: BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS as in chapter 03;
 * STORER_WARPS (0: consumers store C themselves), GROUP (rows of tiles per
 * group of the visiting order; 1 = plain row-major order).
 */
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "kernel.h"

#define STR_(x) #x      /**< @brief helper of STR() */
#define STR(x) STR_(x) /**< @brief a macro's value as a string, for the knob string */

#ifndef BM
#define BM 128 /**< rows of C per tile (as chapters 01-03) */
#endif
#ifndef BN
#define BN 128 /**< columns of C per tile (as chapters 01-03) */
#endif
#ifndef BK
#define BK 32 /**< depth of one A/B tile along K (as chapters 02-03) */
#endif
#ifndef STAGES
#define STAGES 4 /**< tiles the ring holds */
#endif
#ifndef PRODUCER_WARPS
#define PRODUCER_WARPS 8 /**< warps that only copy tiles (as chapter 03) */
#endif
#ifndef STORER_WARPS
#define STORER_WARPS 0 /**< warps that only write C (0: the consumers do) */
#endif
#ifndef GROUP
#define GROUP 8 /**< rows of tiles visited together (1: row-major order) */
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /**< blocks per SM the register budget must allow */
#endif
#ifndef RESIDUAL
#define RESIDUAL 0 /**< 1: the epilogue adds a residual, C = A*B + R: it loads R before it stores */
#endif

#include "../common/gemm_blocked.cuh"
#include "../common/gemm_async.cuh" /* issue_tile(), stage_a(), stage_b() (chapter 02) */
#include "../common/gemm_roles.cuh" /* named barriers, stage_c(), write_staged_c() (chapter 03) */

#define CONSUMER_THREADS BLOCKED_THREADS           /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32)     /**< threads that copy */
#define STORER_THREADS (STORER_WARPS * 32)         /**< threads that write C */
#define PIPE_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads of the pipeline */
#define WS_THREADS (PIPE_THREADS + STORER_THREADS) /**< threads per block */
#define C_STAGE_FLOATS (STORER_WARPS > 0 ? BM * BN : 0) /**< floats of the staged C tile */
#define BAR_PIPE 1  /**< named barrier: make_pipeline() over producers and consumers */
#define BAR_FETCH 2 /**< named barrier: the producers share the tile index just fetched */
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert(PRODUCER_WARPS >= 1 && (BM * BK / 4) % PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads must split the A and B tiles evenly");
static_assert(STORER_WARPS >= 0 && WS_THREADS <= 1024, "too many threads per block");
static_assert(GROUP >= 1, "GROUP must be at least 1");

extern "C" const char gemm_persistent_knobs[] =
    "BM=" STR(BM) " BN=" STR(BN) " BK=" STR(BK) " TM=" STR(TM) " TN=" STR(TN)
    " MIN_BLOCKS=" STR(MIN_BLOCKS) " STAGES=" STR(STAGES) " PRODUCER_WARPS=" STR(PRODUCER_WARPS)
    " STORER_WARPS=" STR(STORER_WARPS) " GROUP=" STR(GROUP) " RESIDUAL=" STR(RESIDUAL);

/**
 * @brief The epilogue: C = acc (+ R with RESIDUAL=1) for the thread's 8 x 8
 *        block of the tile at (@p m0, @p n0), as store_tile() does.
 *
 * A residual epilogue loads before it stores, so a consumer doing it waits
 * for memory once per tile; plain stores do not make it wait. That is the
 * difference the storer warps can hide (see the page).
 */
__device__ __forceinline__ void epilogue(float *__restrict__ C, const float *__restrict__ R,
                                         const float acc[TM][TN], int m0, int n0, int M, int N, int tx, int ty)
{
#if RESIDUAL
    const bool vec = rows_aligned16(C, N) && rows_aligned16(R, N);
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = m0 + (i < 4 ? ty * 4 + i : BM / 2 + ty * 4 + (i - 4));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int col = n0 + h * (BN / 2) + tx * 4;
            const float4 r = load4_or_zero(R, row, col, M, N, vec);
            store4_guarded(C, row, col, M, N, vec,
                           make_float4(acc[i][h * 4 + 0] + r.x, acc[i][h * 4 + 1] + r.y,
                                       acc[i][h * 4 + 2] + r.z, acc[i][h * 4 + 3] + r.w));
        }
    }
#else
    (void)R;
    store_tile(C, acc, m0, n0, M, N, tx, ty);
#endif
}

/** @brief The storers' epilogue: write the staged tile (+ R with RESIDUAL=1), as write_staged_c(). */
__device__ __forceinline__ void storer_epilogue(float *__restrict__ C, const float *__restrict__ R,
                                                const float (*Cs)[BN], int m0, int n0, int M, int N, int tid,
                                                int nthreads)
{
#if RESIDUAL
    const bool vec = rows_aligned16(C, N) && rows_aligned16(R, N);
#pragma unroll 4
    for (int e = tid; e < BM * BN / 4; e += nthreads) {
        const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
        const float4 v = *reinterpret_cast<const float4 *>(&Cs[r][c]);
        const float4 x = load4_or_zero(R, m0 + r, n0 + c, M, N, vec);
        store4_guarded(C, m0 + r, n0 + c, M, N, vec, make_float4(v.x + x.x, v.y + x.y, v.z + x.z, v.w + x.w));
    }
#else
    (void)R;
    write_staged_c(C, Cs, m0, n0, M, N, tid, nthreads);
#endif
}

/**
 * @brief Row and column of output tile number @p t in the grouped order.
 *
 * Tiles are numbered GROUP tile-rows at a time, column by column inside a
 * group: 0 .. GROUP-1 go down the first column of the group, then the next
 * column. The blocks running at one moment then share a few A panels (GROUP
 * tile-rows) and a band of B panels, which stay in L2, instead of each
 * wave of tiles sweeping all of B. GROUP = 1 is plain row-major order.
 */
//! [swizzle]
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    const int per_group = GROUP * tiles_n;
    const int first_m = (t / per_group) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP); /* the last group may be shorter */
    *tm = first_m + (t % per_group) % rows;
    *tn = (t % per_group) / rows;
}
//! [swizzle]

/**
 * @brief Persistent warp-specialized GEMM: each block takes output tiles
 *        from @p next_tile until all are done.
 * @param M, N, K    problem size
 * @param A, B       inputs (M x K, K x N, row-major)
 * @param C          output (M x N)
 * @param R          the residual (M x N) when RESIDUAL=1; unused otherwise
 * @param next_tile  the tile counter; 0 at launch (the launcher resets it)
 */
//! [kernel]
__global__ void __launch_bounds__(WS_THREADS, MIN_BLOCKS)
gemm_persistent(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                float *__restrict__ C, const float *__restrict__ R, int *__restrict__ next_tile)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), staged C */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
#pragma nv_diag_default static_var_with_dynamic_init
    __shared__ int stage_tile[STAGES]; /* which output tile stage s belongs to; -1: no more */
    __shared__ int fetched[2];         /* the producers' last two fetched tile indices */

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + BK - 1) / BK;
#if STORER_WARPS > 0
    float(*Cs)[BN] = reinterpret_cast<float(*)[BN]>(smem + STAGES * STAGE_FLOATS);
    __shared__ int c_tile; /* the tile staged in Cs; -1: no more */
    /* c_full: "Cs holds tile c_tile"; c_empty: "Cs is written out, reuse it".
     * Each completes a phase when every consumer and storer has arrived. */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::barrier<cuda::thread_scope_block> c_full, c_empty;
#pragma nv_diag_default static_var_with_dynamic_init
    if (threadIdx.x == 0) {
        init(&c_full, CONSUMER_THREADS + STORER_THREADS);
        init(&c_empty, CONSUMER_THREADS + STORER_THREADS);
    }
    __syncthreads(); /* the barriers are initialized before anyone uses them */
    //! [storer]
    if (threadIdx.x >= PIPE_THREADS) { /* storer warps: not part of the pipeline */
        for (;;) {
            c_full.arrive_and_wait(); /* the consumers staged a tile (or -1) */
            const int t = c_tile;
            if (t < 0) return;
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            storer_epilogue(C, R, Cs, tm * BM, tn * BN, M, N, threadIdx.x - PIPE_THREADS,
                            STORER_THREADS);
            (void)c_empty.arrive(); /* Cs may be overwritten; nothing to wait for here */
        }
    }
    //! [storer]
#endif

    const bool producer = threadIdx.x < PRODUCER_THREADS;
    auto pipe = cuda::make_pipeline(leading_threads{PIPE_THREADS, BAR_PIPE}, &state,
                                    producer ? cuda::pipeline_role::producer
                                             : cuda::pipeline_role::consumer);

    if (producer) {
        //! [producer]
        const bool b_vec = rows_aligned16(B, N);
        int s = 0; /* the stage the next acquire gets: the pipeline's order, tile after tile */
        for (int j = 0;; ++j) {
            /* One atomic per tile for the whole block, shared through shared
             * memory; two slots, so thread 0 never overwrites a value that
             * another producer has not read yet. */
            if (threadIdx.x == 0) fetched[j & 1] = atomicAdd(next_tile, 1);
            named_barrier_sync(BAR_FETCH, PRODUCER_THREADS);
            const int t = fetched[j & 1];
            if (t >= tiles) break;
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                pipe.producer_acquire();
                if (threadIdx.x == 0) stage_tile[s] = t;
                issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, tm * BM, tn * BN,
                           kt * BK, b_vec, threadIdx.x, PRODUCER_THREADS, pipe);
                pipe.producer_commit();
                s = (s + 1) % STAGES;
            }
        }
        /* One more stage with no data tells the consumers to stop. */
        pipe.producer_acquire();
        if (threadIdx.x == 0) stage_tile[s] = -1;
        pipe.producer_commit();
        //! [producer]
    } else {
        //! [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        int s = 0, done = 0; /* done: tiles finished by this block */
        for (;; ++done) {
            pipe.consumer_wait();
            const int t = stage_tile[s]; /* published by the stage's commit */
            if (t < 0) {
                pipe.consumer_release();
                break;
            }
            float acc[TM][TN] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                if (kt > 0) pipe.consumer_wait();
                compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
                pipe.consumer_release();
                s = (s + 1) % STAGES;
            }
#if STORER_WARPS > 0
            /* Hand the tile to the storers, once they have written the last
             * one, and go on with the next tile while they write this one. */
            if (done > 0) c_empty.arrive_and_wait();
            stage_c(Cs, acc, tx, ty);
            if (ctid == 0) c_tile = t;
            (void)c_full.arrive();
#else
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            epilogue(C, R, acc, tm * BM, tn * BN, M, N, tx, ty);
#endif
        }
#if STORER_WARPS > 0
        /* Tell the storers to stop, once they have written the last tile. */
        if (done > 0) c_empty.arrive_and_wait();
        if (ctid == 0) c_tile = -1;
        (void)c_full.arrive();
#endif
        //! [consumer]
    }
}
//! [kernel]

/* The tile counter, and the grid size from the occupancy API (both once). */
static int *tile_counter;
static int resident_blocks;
/* RESIDUAL=1: the residual R, M x N. It holds zeros, so C = A*B + R = A*B
 * and the chapter's verification applies unchanged; the epilogue's loads,
 * their latency and their traffic are those of any residual. */
static float *residual;
static size_t residual_elems;

extern "C" cudaError_t launch_gemm_persistent(int M, int N, int K, const float *A, const float *B,
                                              float *C, cudaStream_t stream)
{
    const size_t smem = (size_t)(STAGES * STAGE_FLOATS + C_STAGE_FLOATS) * sizeof(float);
    cudaError_t err;
    if (tile_counter == NULL) {
        int dev, sms, per_sm;
        if (smem > 48 * 1024 &&
            (err = cudaFuncSetAttribute(gemm_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)smem)) != cudaSuccess)
            return err;
        if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemm_persistent, WS_THREADS,
                                                                 smem)) != cudaSuccess ||
            (err = cudaMalloc((void **)&tile_counter, sizeof(int))) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
        resident_blocks = per_sm * sms;
    }
    if (RESIDUAL && residual_elems < (size_t)M * N) {
        if (residual != NULL) cudaFree(residual);
        residual_elems = 0;
        if ((err = cudaMalloc((void **)&residual, (size_t)M * N * sizeof(float))) != cudaSuccess ||
            (err = cudaMemset(residual, 0, (size_t)M * N * sizeof(float))) != cudaSuccess)
            return err;
        residual_elems = (size_t)M * N;
    }
    //! [launch]
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const int grid = tiles < resident_blocks ? tiles : resident_blocks;
    /* Every launch starts the queue at tile 0: reset the counter in the
     * same stream, so it happens after the previous launch and before this one. */
    err = cudaMemsetAsync(tile_counter, 0, sizeof(int), stream);
    if (err != cudaSuccess) return err;
    gemm_persistent<<<grid, WS_THREADS, smem, stream>>>(M, N, K, A, B, C, residual, tile_counter);
    //! [launch]
    return cudaGetLastError();
}
