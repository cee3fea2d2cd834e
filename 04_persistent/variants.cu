/**
 * @file 04_persistent/variants.cu
 * @brief Chapter 04's measured alternatives to its lesson kernel, each the
 *        persistent GEMM of kernel.cu with one change:
 *  - gemm_persistent_residual: the epilogue adds a residual, C = A*B + R, so
 *    the consumers load before they store (R holds zeros, so the chapter's
 *    verification applies; the loads, their latency and their traffic are
 *    those of any residual). The case a storer role is for.
 *  - gemm_persistent_storer: STORER_WARPS storer warps write tile t from a
 *    staged C tile while the consumers compute tile t+1.
 *  - gemm_persistent_storer_residual: both; the storers also fetch R's part
 *    of a tile into the staged tile while the consumers compute it.
 * The page measures where storers pay (a short K with the residual) and
 * where they do not.
 */
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "variants.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "knobs.h"              /* BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS GROUP, as kernel.cu */
#if !defined(STORER_WARPS)
#error "STORER_WARPS: set by 04_persistent/Makefile (make help lists them); build with make"
#endif
#include "../01_naive/blocked.cuh" /* load4_or_zero(), store4_guarded(), compute_tile(), store_tile() */
#include "../02_double_buffer/async_copy.cuh" /* issue_tile(), stage_a(), stage_b() */
#include "../03_warp_specialized/roles.cuh" /* leading_threads, named_barrier_sync(), stage_c(), write_staged_c() */
#include "tile_order.cuh" /* tile_coords() */

#define STORER_THREADS (STORER_WARPS * 32)     /**< threads that write C (storer variants) */
#define PIPE_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads of the pipeline */
#define STORER_BLOCK_THREADS (PIPE_THREADS + STORER_THREADS) /**< threads per block with storers */
static_assert(STORER_WARPS >= 1 && STORER_BLOCK_THREADS <= 1024, "1 or more storer warps, at most 1024 threads");

extern "C" const char gemm_persistent_residual_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES) KNOB(PRODUCER_WARPS)
    KNOB(GROUP);
extern "C" const char gemm_persistent_storer_knobs[] =
    KNOB(BM) KNOB(BN) KNOB(BK) KNOB(TM) KNOB(TN) KNOB(MIN_BLOCKS) KNOB(STAGES) KNOB(PRODUCER_WARPS)
    KNOB(GROUP) KNOB(STORER_WARPS);

/**
 * @brief The consumers' residual epilogue: C = acc + R for the thread's
 *        8 x 8 block of the tile at (@p m0, @p n0), as store_tile() does.
 *
 * A residual epilogue loads before it stores, so a consumer doing it waits
 * for memory in every tile; plain stores do not make it wait. The loads go
 * first, RH rows at a time, so that RH x 2 of them are in flight per wait
 * (two waits per tile). Written load-add-store per element instead, each
 * store waits for its own load and the next load comes after that store
 * (and after a branch of the bounds checks), so the compiler issues them
 * one round trip apart, 16 per tile. All 8 rows at once would need 64 more
 * registers than the 128 the consumers have.
 */
// [epilogue]
__device__ __forceinline__ void residual_epilogue(float *__restrict__ C, const float *__restrict__ R,
                                                  const float acc[TM][TN], int m0, int n0, int M, int N, int tx,
                                                  int ty)
{
    constexpr int RH = 4; /* rows of the thread's block whose R is in flight at once */
    const bool vec = rows_aligned16(C, N) && rows_aligned16(R, N);
#pragma unroll
    for (int i0 = 0; i0 < TM; i0 += RH) {
        float4 r[RH][2];
#pragma unroll
        for (int i = 0; i < RH; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h)
                r[i][h] = load4_or_zero(R, m0 + block_row(i0 + i, ty), n0 + h * (BN / 2) + tx * 4, M, N, vec);
#pragma unroll
        for (int i = 0; i < RH; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const float *a = &acc[i0 + i][h * 4];
                store4_guarded(C, m0 + block_row(i0 + i, ty), n0 + h * (BN / 2) + tx * 4, M, N, vec,
                               make_float4(a[0] + r[i][h].x, a[1] + r[i][h].y, a[2] + r[i][h].z,
                                           a[3] + r[i][h].w));
            }
    }
}
// [epilogue]

/**
 * @brief The storers' half of a residual epilogue: start copying R's part
 *        of the tile at (@p m0, @p n0) into the staged tile @p Cs, one row
 *        per copy, tracked by @p ready; the consumers then add their
 *        accumulators to it. Rows that are not whole 16-byte-aligned rows
 *        of R inside the matrix are read element by element (zeros outside).
 *
 * With a `cuda::barrier` as its last argument, `cuda::memcpy_async` makes
 * the barrier's current phase wait for the copy as well as for the
 * arrivals. On Hopper each row is one bulk copy (`cp.async.bulk`, done by
 * the copy engine); on Ampere, 16-byte `cp.async`s issued by this thread.
 * Either way no register holds the data while it is in flight, so all 128
 * rows can be on their way at once.
 */
// [prefetch]
__device__ __forceinline__ void prefetch_residual(float (*Cs)[BN], const float *__restrict__ R, int m0,
                                                  int n0, int M, int N, int tid, int nthreads,
                                                  cuda::barrier<cuda::thread_scope_block> &ready)
{
    const bool whole_rows = rows_aligned16(R, N) && n0 + BN <= N;
    for (int r = tid; r < BM; r += nthreads) {
        if (whole_rows && m0 + r < M) {
            cuda::memcpy_async(&Cs[r][0], &R[(size_t)(m0 + r) * N + n0],
                               cuda::aligned_size_t<16>(BN * sizeof(float)), ready);
        } else {
            for (int c = 0; c < BN; ++c)
                Cs[r][c] = (m0 + r < M && n0 + c < N) ? R[(size_t)(m0 + r) * N + n0 + c] : 0.0f;
        }
    }
}
// [prefetch]

/**
 * @brief The storers' write-out: copy the staged tile @p Cs to C at
 *        (@p m0, @p n0), and return once Cs may be overwritten.
 *
 * On Hopper, where the tile's rows are whole 16-byte-aligned rows of C,
 * each storer thread hands its rows to the copy engine as bulk copies
 * (`cp.async.bulk.global.shared::cta`, one per 512-byte row) and waits
 * only until the engine has *read* them (`cp.async.bulk.wait_group.read`);
 * the writes to global memory finish on their own. A warp's own stores
 * would be limited by how many it can have in flight (see the page: one
 * storer warp writing with stores takes 2.2x as long at a short K). Other
 * tiles, and older GPUs, use write_staged_c().
 */
// [write_out]
__device__ __forceinline__ void write_out(float *__restrict__ C, const float (*Cs)[BN], int m0, int n0, int M,
                                          int N, int tid, int nthreads)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    namespace cde = cuda::device::experimental;
    if (rows_aligned16(C, N) && n0 + BN <= N) {
        for (int r = tid; r < BM && m0 + r < M; r += nthreads)
            cde::cp_async_bulk_shared_to_global(&C[(size_t)(m0 + r) * N + n0], &Cs[r][0], BN * sizeof(float));
        cde::cp_async_bulk_commit_group();
        cde::cp_async_bulk_wait_group_read<0>();
        return;
    }
#endif
    write_staged_c(C, Cs, m0, n0, M, N, tid, nthreads);
}
// [write_out]

/**
 * @brief A consumer's last step before handing a staged tile to the
 *        storers: its plain shared-memory stores must be ordered before the
 *        copy engine's reads of the same bytes (the "async proxy"), which
 *        the barrier alone does not do. No-op where write_out() never uses
 *        the copy engine.
 */
__device__ __forceinline__ void staged_for_copy_engine()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cuda::device::experimental::fence_proxy_async_shared_cta();
#endif
}

/**
 * @brief The body of the three variant kernels: kernel.cu's persistent GEMM
 *        with a residual epilogue (@p residual), storer warps (@p storers),
 *        or both. Both flags are constants at each call, so each kernel
 *        compiles only its own branches.
 * @param M, N, K    problem size
 * @param A, B       inputs (M x K, K x N, row-major)
 * @param C          output (M x N)
 * @param R          the residual (M x N); unused unless @p residual
 * @param next_tile  the tile counter; 0 at launch (the launcher resets it)
 * @param storers    STORER_WARPS warps write C from a staged tile
 * @param residual   C = A*B + R instead of A*B
 */
// [kernel]
__device__ __forceinline__ void persistent_variant(int M, int N, int K, const float *__restrict__ A,
                                                   const float *__restrict__ B, float *__restrict__ C,
                                                   const float *__restrict__ R, int *__restrict__ next_tile,
                                                   const bool storers, const bool residual)
{
    extern __shared__ __align__(16) float smem[]; /* STAGES x (A tile + B tile), staged C */
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    /* Three hand-offs per tile between consumers and storers, each a barrier
     * that completes a phase when every consumer and storer has arrived:
     *   c_next:  "c_tile is the tile the consumers just started"
     *   c_ready: "Cs is free (and holds R's part of the tile, with a residual)"
     *   c_full:  "Cs holds the finished tile" */
    __shared__ cuda::barrier<cuda::thread_scope_block> c_next, c_ready, c_full;
#pragma nv_diag_default static_var_with_dynamic_init
    __shared__ int stage_tile[STAGES]; /* which output tile stage s belongs to; -1: no more */
    __shared__ int fetched[2];         /* the producers' last two fetched tile indices */
    __shared__ int c_tile;             /* the tile the consumers are on; -1: no more */

    const int tiles_m = (M + BM - 1) / BM, tiles_n = (N + BN - 1) / BN;
    const int tiles = tiles_m * tiles_n, k_tiles = (K + BK - 1) / BK;
    float(*Cs)[BN] = reinterpret_cast<float(*)[BN]>(smem + STAGES * STAGE_FLOATS);
    if (storers) {
        if (threadIdx.x == 0) {
            init(&c_next, CONSUMER_THREADS + STORER_THREADS);
            init(&c_ready, CONSUMER_THREADS + STORER_THREADS);
            init(&c_full, CONSUMER_THREADS + STORER_THREADS);
        }
        __syncthreads(); /* the barriers are initialized before anyone uses them */
        // [storer]
        if (threadIdx.x >= PIPE_THREADS) { /* storer warps: not part of the pipeline */
            const int sid = threadIdx.x - PIPE_THREADS;
            for (;;) {
                c_next.arrive_and_wait(); /* the consumers started a tile (or -1) */
                const int t = c_tile;
                if (t < 0) return;
                int tm, tn;
                tile_coords(t, tiles_m, tiles_n, &tm, &tn);
                /* Fetch R's part while the consumers compute: c_ready's phase
                 * now also waits for these copies. */
                if (residual) prefetch_residual(Cs, R, tm * BM, tn * BN, M, N, sid, STORER_THREADS, c_ready);
                (void)c_ready.arrive();  /* nothing to wait for: the consumers wait */
                c_full.arrive_and_wait(); /* the consumers added their accumulators */
                write_out(C, Cs, tm * BM, tn * BN, M, N, sid, STORER_THREADS);
            }
        }
        // [storer]
    }

    const bool producer = threadIdx.x < PRODUCER_THREADS;
    /* The pipeline's group is the producers and consumers only (the storers
     * never call make_pipeline()), so its set-up barrier is a named one. */
    // ---- exercise 03.1: Tell the pipeline which threads produce and which consume ----
    // hint: as in kernel.cu: each thread's role in the partitioned pipeline.
    auto pipe = cuda::make_pipeline(leading_threads{PIPE_THREADS, BAR_PIPE}, &state,
                                    producer ? cuda::pipeline_role::producer
                                             : cuda::pipeline_role::consumer);
    // stub: auto pipe = cuda::make_pipeline(leading_threads{PIPE_THREADS, BAR_PIPE}, &state);
    // ---- end of exercise 03.1 ----

    if (producer) { /* as kernel.cu */
        const bool b_vec = rows_aligned16(B, N);
        int s = 0;
        for (int j = 0;; ++j) {
            // ---- exercise 04.1: Take the next output tile from the queue ----
            // hint: as in kernel.cu: one ticket per tile, handed to the other producers.
            if (threadIdx.x == 0) fetched[j & 1] = atomicAdd(next_tile, 1);
            named_barrier_sync(BAR_FETCH, PRODUCER_THREADS);
            const int t = fetched[j & 1];
            // stub: const int t = tiles; (void)fetched[0]; /* no tile: the producers stop at once */
            // ---- end of exercise 04.1 ----
            if (t >= tiles) break;
            int tm, tn;
            tile_coords(t, tiles_m, tiles_n, &tm, &tn);
            for (int kt = 0; kt < k_tiles; ++kt) {
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                // hint: as in kernel.cu: wait for a free stage before the copies, commit it after them.
                pipe.producer_acquire();
                // ---- end of exercise 03.2 ----
                if (threadIdx.x == 0) stage_tile[s] = t;
                issue_tile(stage_a(smem, s), stage_b(smem, s), A, B, M, N, K, tm * BM, tn * BN,
                           kt * BK, b_vec, threadIdx.x, PRODUCER_THREADS, pipe);
                // ---- exercise 03.2: The producers' hand-offs: take a free stage, publish a full one ----
                pipe.producer_commit();
                // ---- end of exercise 03.2 ----
                s = (s + 1) % STAGES;
            }
        }
        // ---- exercise 04.2: Tell the consumers that the queue is empty ----
        // hint: as in kernel.cu: one last stage that says stop.
        pipe.producer_acquire();
        if (threadIdx.x == 0) stage_tile[s] = -1;
        pipe.producer_commit();
        // ---- end of exercise 04.2 ----
    } else {
        // [consumer]
        const int ctid = threadIdx.x - PRODUCER_THREADS;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        int s = 0;
        for (;;) {
            // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
            // hint: as in kernel.cu: wait for each stage before reading it, release it after.
            pipe.consumer_wait();
            // ---- end of exercise 03.3 ----
            const int t = stage_tile[s]; /* published by the stage's commit */
            if (t < 0) {
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_release();
                // ---- end of exercise 03.3 ----
                break;
            }
            if (storers) {
                /* Tell the storers which tile this is, so they can fetch its
                 * residual; they have read the last c_tile (c_ready below). */
                if (ctid == 0) c_tile = t;
                (void)c_next.arrive();
            }
            float acc[TM][TN] = {};
            for (int kt = 0; kt < k_tiles; ++kt) {
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                if (kt > 0) pipe.consumer_wait();
                // ---- end of exercise 03.3 ----
                compute_tile(acc, stage_a(smem, s), stage_b(smem, s), tx, ty);
                // ---- exercise 03.3: The consumers' hand-offs: wait for a full stage, release it ----
                pipe.consumer_release();
                // ---- end of exercise 03.3 ----
                s = (s + 1) % STAGES;
            }
            if (storers) {
                /* Hand the tile over, once the storers have written the last
                 * one (and fetched this one's R), and go on with the next tile
                 * while they write this one. */
                c_ready.arrive_and_wait();
                stage_c(Cs, acc, tx, ty, residual); /* with a residual: Cs += acc */
                staged_for_copy_engine();
                (void)c_full.arrive();
            } else {
                int tm, tn;
                tile_coords(t, tiles_m, tiles_n, &tm, &tn);
                residual_epilogue(C, R, acc, tm * BM, tn * BN, M, N, tx, ty);
            }
        }
        if (storers) {
            /* Tell the storers to stop; they have read the last c_tile. */
            if (ctid == 0) c_tile = -1;
            (void)c_next.arrive();
        }
        // [consumer]
    }
}
// [kernel]

/** @brief Lesson kernel + a residual epilogue done by the consumers. */
__global__ void __launch_bounds__(PIPE_THREADS, MIN_BLOCKS)
gemm_persistent_residual(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                         float *__restrict__ C, const float *__restrict__ R, int *__restrict__ next_tile)
{
    persistent_variant(M, N, K, A, B, C, R, next_tile, false, true);
}

/** @brief Lesson kernel + storer warps that write C (no residual). */
__global__ void __launch_bounds__(STORER_BLOCK_THREADS, MIN_BLOCKS)
gemm_persistent_storer(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                       float *__restrict__ C, const float *__restrict__ R, int *__restrict__ next_tile)
{
    persistent_variant(M, N, K, A, B, C, R, next_tile, true, false);
}

/** @brief Lesson kernel + storer warps that fetch R ahead and write C = A*B + R. */
__global__ void __launch_bounds__(STORER_BLOCK_THREADS, MIN_BLOCKS)
gemm_persistent_storer_residual(int M, int N, int K, const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, const float *__restrict__ R, int *__restrict__ next_tile)
{
    persistent_variant(M, N, K, A, B, C, R, next_tile, true, true);
}

/** @brief A variant kernel with what its launches need: its counter and grid size. */
typedef struct {
    void (*kernel)(int, int, int, const float *, const float *, float *, const float *, int *); /**< the kernel */
    int threads;         /**< threads per block */
    size_t smem;         /**< dynamic shared memory per block */
    int *tile_counter;   /**< its tile counter (allocated at the first launch) */
    int resident_blocks; /**< blocks that fit at once (the occupancy API) */
} variant;

#define STORER_SMEM (RING_BYTES + (size_t)BM * BN * sizeof(float)) /**< the ring and the staged C tile */
static variant residual_v = {gemm_persistent_residual, PIPE_THREADS, RING_BYTES, NULL, 0};
static variant storer_v = {gemm_persistent_storer, STORER_BLOCK_THREADS, STORER_SMEM, NULL, 0};
static variant storer_residual_v = {gemm_persistent_storer_residual, STORER_BLOCK_THREADS, STORER_SMEM, NULL, 0};
SMEM_REPORT(persistent_residual, RING_BYTES)
SMEM_REPORT(persistent_storer, STORER_SMEM)
SMEM_REPORT(persistent_storer_residual, STORER_SMEM)

/* The residual R, M x N: zeros, so C = A*B + R = A*B and the chapter's
 * verification applies unchanged. */
static float *residual;
static size_t residual_elems;

/* As kernel.cu's launcher: the grid from the occupancy API (once), the
 * counter reset in the stream before each launch; and R when it is used. */
static cudaError_t launch_variant(variant *v, bool uses_r, int M, int N, int K, const float *A, const float *B,
                                  float *C, cudaStream_t stream)
{
    cudaError_t err;
    if (v->tile_counter == NULL) {
        int dev, sms, per_sm;
        if ((err = smem_opt_in((const void *)v->kernel, v->smem)) != cudaSuccess ||
            (err = cudaGetDevice(&dev)) != cudaSuccess ||
            (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess ||
            (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v->kernel, v->threads, v->smem)) !=
                cudaSuccess ||
            (err = cudaMalloc((void **)&v->tile_counter, sizeof(int))) != cudaSuccess)
            return err;
        if (per_sm < 1) return cudaErrorInvalidConfiguration;
        v->resident_blocks = per_sm * sms;
    }
    if (uses_r && residual_elems < (size_t)M * N) {
        if (residual != NULL) cudaFree(residual);
        residual_elems = 0;
        if ((err = cudaMalloc((void **)&residual, (size_t)M * N * sizeof(float))) != cudaSuccess ||
            (err = cudaMemset(residual, 0, (size_t)M * N * sizeof(float))) != cudaSuccess)
            return err;
        residual_elems = (size_t)M * N;
    }
    const int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
    const int grid = tiles < v->resident_blocks ? tiles : v->resident_blocks;
    if ((err = cudaMemsetAsync(v->tile_counter, 0, sizeof(int), stream)) != cudaSuccess) return err;
    v->kernel<<<grid, v->threads, v->smem, stream>>>(M, N, K, A, B, C, uses_r ? residual : NULL, v->tile_counter);
    return cudaGetLastError();
}

extern "C" cudaError_t launch_gemm_persistent_residual(int M, int N, int K, const float *A, const float *B,
                                                       float *C, cudaStream_t stream)
{
    return launch_variant(&residual_v, true, M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_persistent_storer(int M, int N, int K, const float *A, const float *B, float *C,
                                                     cudaStream_t stream)
{
    return launch_variant(&storer_v, false, M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_persistent_storer_residual(int M, int N, int K, const float *A,
                                                              const float *B, float *C, cudaStream_t stream)
{
    return launch_variant(&storer_residual_v, true, M, N, K, A, B, C, stream);
}
