/**
 * @file 07_tma_multicast/kernel_tc.cu
 * @brief Chapter 07 on the tensor cores: tma_multicast_tc, chapter 06's
 *        cluster_tc with its copies done by the Tensor Memory Accelerator:
 *        one thread issues one TMA copy for the A tile and one per B panel
 *        of its part, and each part is multicast, landing in every block
 *        of the cluster at once.
 *
 * In chapter 06 a warpgroup of producers issues a cp.async for every 16
 * bytes of a stage, with the address arithmetic and the edge checks of
 * each, waits for its part to land, and hands it to the peers with a
 * second copy. Here a tensor map (made on the host, tensor_map.c) tells the
 * copy engine the matrix's shape and strides; a copy names a box by its
 * coordinates, writes it in the 128-byte swizzle wgmma reads
 * (CU_TENSOR_MAP_SWIZZLE_128B: 16-byte chunk c of box row r lands at chunk
 * c ^ (r % 8), sw128_offset()'s layout), fills what lies outside the
 * matrix with zeros, and counts its bytes on the stage's full barrier
 * (`mbarrier.arrive.expect_tx`). With `.multicast::cluster` the one copy of
 * a part lands at the same offset in each block of the cluster and counts
 * on each block's barrier: no second copy, and no waiting for the first.
 *
 * A tensor map needs rows that start at multiples of 16 bytes: K (for A)
 * and N (for B) multiples of 8. Other shapes take a padding pass
 * (cudaMemcpy2DAsync into a buffer with padded rows; the map still has
 * the matrix's own width, so TMA reads zeros past it), which is part of
 * every call and of every time reported.
 *
 * Parent: chapter 06 (06_clusters_dsmem/kernel_tc.cu); `make diff-tc`
 * shows what this changes.
 *
 * The epilogue goes through TMA too (store_box()): each warp writes its 16
 * rows of accumulators, 32 columns (a 2 KB box) at a time, into one of its
 * two places in shared memory, and one lane has the copy engine store the
 * box to C in whole 128-byte rows while the warp fills its other place.
 * Before refilling a place the warp waits until the copy engine has read
 * it, so a tile's last boxes wait for the drain of its first ones while
 * the tensor cores idle. The
 * warp therefore stores only its first boxes at the tile's end
 * (store_tile_tma()) and carries the values of the last TC_DEFER in
 * registers into the next tile, storing one every TC_DEFER_STRIDE K steps
 * while its multiplies run (store_carried()). From registers (chapter 06's
 * store_tile_tc()) each store instruction of a warp writes 32 bytes into
 * each of 8 rows of C, and the warp waits for nothing but the issue.
 *
 * Knobs: TC_BN, TC_STAGES, TC_CLUSTER, TC_GROUP as in chapter 06
 * (TC_CLUSTER=1: TMA without multicast); TC_TMA_STORE (0: C is stored
 * from registers, as in chapter 06); TC_DEFER (boxes per warp carried
 * into the next tile; 0: all stored at the tile's end).
 * Built for sm_90a only (make ARCH=sm_90a, the default on a Hopper GPU).
 */
#include <cooperative_groups.h>
#include <cuda.h>
#include <stdio.h>
#include <stdint.h>
#include <cuda_runtime.h>

#include "kernel_tc.h"

#include "../common/launch.cuh" /* KNOB(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "../01_naive/blocked_tc.cuh" /* the tile, mma_tile(), store_tile_tc() */
#include "../02_double_buffer/async_copy_tc.cuh" /* stage_a_tc(), stage_b_tc() */
#include "../06_clusters_dsmem/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "tma.cuh" /* TMA copies that complete on them */
#include "tensor_map.h" /* tma_map_2d_bf16(): tensor maps on the host */

#if !defined(TC_STAGES) || !defined(TC_CLUSTER) || !defined(TC_GROUP) || !defined(TC_TMA_STORE) || !defined(TC_DEFER)
#error "TC_STAGES TC_CLUSTER TC_GROUP TC_TMA_STORE TC_DEFER: set by the chapter's Makefile (make help lists them)"
#endif
#include "../04_persistent/tile_order.cuh" /* grouped_tile_coords(): chapter 04's order */

static_assert(TC_STAGES >= 2 && TC_STAGES <= 8, "TC_STAGES must be 2..8");
static_assert(TC_GROUP >= 1, "TC_GROUP must be at least 1");
static_assert(TC_CLUSTER == 1 || TC_CLUSTER == 2 || TC_CLUSTER == 4, "TC_CLUSTER must be 1, 2 or 4");
static_assert(TC_BN / 64 % TC_CLUSTER == 0, "the blocks of a cluster copy whole 64-column panels of B");
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + TC_C_STAGING + SW128_ATOM_BYTES) /**< ring, boxes, alignment */
#define TC_PART_PANELS (TC_BN / 64 / TC_CLUSTER) /**< 64-column panels of each B tile one block copies for the cluster */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_LAUNCH_REGS 168   /**< registers per thread at launch: 65536 / 384, rounded down to a multiple of 8 */
/* One producer thread issues every copy. Besides its accumulators a
 * consumer thread holds the TC_DEFER x 16 values it carries into the next
 * tile: 5 boxes take the most the launch allows, 240 registers, which
 * leaves the producers 24, enough unless one copies 4 panels of B
 * (TC_CLUSTER=1); up to 4 fit in chapter 04's 232, beside 40. */
#define TC_PRODUCER_REGS (TC_DEFER > 4 ? 24 : 40)   /**< what a producer thread keeps */
#define TC_CONSUMER_REGS (TC_DEFER > 4 ? 240 : 232) /**< what a consumer thread gets */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
static_assert(TC_LAUNCH_REGS == 65536 / TC_WS_THREADS / 8 * 8, "the even split of the register file at launch");
static_assert(TC_PRODUCERS * TC_PRODUCER_REGS + TC_CONSUMERS * TC_CONSUMER_REGS <= TC_WS_THREADS * TC_LAUNCH_REGS,
              "the split fits the registers the block was launched with (setmaxnreg.inc would wait forever)");

#define TC_C_BOX_COLS 32 /**< columns of C per store box: 128 bytes of FP32, the 128-byte swizzle's widest row */
#define TC_C_BOX_ROWS 16 /**< rows of C per store box: one warp's rows of the accumulators */
#define TC_C_BOX_BYTES (TC_C_BOX_ROWS * TC_C_BOX_COLS * 4) /**< a store box: 2 KB */
#define TC_C_BOXES 2 /**< places for a box per warp in shared memory: one fills while TMA reads the other */
#define TC_C_STAGING (TC_TMA_STORE ? TC_CONSUMER_WARPS * TC_C_BOXES * TC_C_BOX_BYTES : 0) /**< every warp's boxes */
#define TC_C_TILE_BOXES (TC_BN / TC_C_BOX_COLS) /**< boxes a warp stores per tile: its 16 rows, 32 columns at a time */
#define TC_C_PER_BOX (TC_C_BOX_COLS / 2)        /**< accumulators a thread holds of one box */
/* One carried box every 4 K steps, from the second on: each has long been
 * read from its box when the next needs it, and the writes do not bunch. */
#define TC_DEFER_STRIDE 4 /**< K steps between two carried boxes' stores */
static_assert(TC_DEFER >= 0 && TC_DEFER < TC_C_TILE_BOXES, "TC_DEFER: 0 to TC_BN / 32 - 1 boxes per warp");
static_assert(TC_ACC + TC_DEFER * TC_C_PER_BOX <= 208,
              "TC_DEFER: the accumulators and the carried values need too many of 240 registers (TC_BN=256: 5)");
static_assert(TC_DEFER <= 4 || TC_PART_PANELS <= 2,
              "TC_DEFER above 4 leaves producers 24 registers, too few to copy 4 panels of B (TC_CLUSTER=1: 4)");

extern "C" const char gemm_tma_multicast_tc_knobs[] =
    KNOB(TC_BM) KNOB(TC_BN) KNOB(TC_BK) KNOB(TC_STAGES) KNOB(TC_CLUSTER) KNOB(TC_GROUP) KNOB(TC_TMA_STORE)
        KNOB(TC_DEFER);

namespace cg = cooperative_groups;

// [store]
/**
 * @brief Store box @p q of this warp's 16 rows of C (columns
 *        q * TC_C_BOX_COLS on, of the tile at (@p m0, @p n0)) from the
 *        TC_C_PER_BOX values @p v, thread @p t of warpgroup @p wg: the
 *        warp writes them into one of its two places for a box in shared
 *        memory (@p staging holds every warp's), laid out as the map's 128-byte
 *        swizzle wants them, then one lane has the copy engine store the
 *        box. The copy engine writes whole 128-byte rows and leaves out
 *        what lies outside C. No warp waits for another.
 */
__device__ __forceinline__ void store_box(const CUtensorMap *map_c, uint8_t *staging, const float *v, int q, int m0,
                                          int n0, int wg, int t)
{
    const int warp = t / 32, lane = t % 32;
    uint8_t *box = staging + ((wg * WG_THREADS / 32 + warp) * TC_C_BOXES + q % TC_C_BOXES) * TC_C_BOX_BYTES;
    /* The store issued TC_C_BOXES boxes ago (in this tile or the last) has
     * read the box in this place: the lane that issued it waits. */
    if (lane == 0) bulk_wait_read<TC_C_BOXES - 1>();
    __syncwarp();
#pragma unroll
    for (int j = 0; j < TC_C_PER_BOX; j += 2) {
        int r, c;
        wgmma_acc_pos(t, q * TC_C_PER_BOX + j, &r, &c);
        r -= warp * TC_C_BOX_ROWS; /* the warp's rows: keeps r % 8, the swizzle's row */
        c -= q * TC_C_BOX_COLS;    /* two adjacent columns: half of a 16-byte chunk, which the swizzle moves whole */
        *reinterpret_cast<float2 *>(box + sw128_offset(r, c / 4) + c % 4 * 4) = make_float2(v[j], v[j + 1]);
    }
    fence_proxy_async(); /* the copy engine reads what these lanes wrote */
    __syncwarp();
    if (lane == 0) {
        /* (column n, row m) */
        tma_store_2d(map_c, box, n0 + q * TC_C_BOX_COLS, m0 + wg * 64 + warp * TC_C_BOX_ROWS);
        bulk_commit();
    }
}

/**
 * @brief At a tile's end: store the boxes of warpgroup @p wg's 64 x TC_BN
 *        accumulators (thread @p t of it) that are not carried into the
 *        next tile, the first TC_C_TILE_BOXES - TC_DEFER of each warp, and
 *        copy the carried ones' values from @p acc to @p carry.
 */
__device__ __forceinline__ void store_tile_tma(const CUtensorMap *map_c, uint8_t *staging, const float acc[TC_ACC],
                                               float *carry, int m0, int n0, int wg, int t)
{
#pragma unroll
    for (int q = 0; q < TC_C_TILE_BOXES - TC_DEFER; ++q)
        store_box(map_c, staging, acc + q * TC_C_PER_BOX, q, m0, n0, wg, t);
#pragma unroll
    for (int j = 0; j < TC_DEFER * TC_C_PER_BOX; ++j)
        carry[j] = acc[(TC_C_TILE_BOXES - TC_DEFER) * TC_C_PER_BOX + j];
}

/**
 * @brief Store carried box @p d if @p first <= d <= @p last (box
 *        TC_C_TILE_BOXES - TC_DEFER + d of the last tile, at (@p m0, @p n0)),
 *        its values in @p carry. The unrolled test keeps @p carry's
 *        indices constant, so it stays in registers.
 */
__device__ __forceinline__ void store_carried(const CUtensorMap *map_c, uint8_t *staging, const float *carry,
                                              int first, int last, int m0, int n0, int wg, int t)
{
#pragma unroll
    for (int d = 0; d < TC_DEFER; ++d)
        if (d >= first && d <= last)
            store_box(map_c, staging, carry + d * TC_C_PER_BOX, TC_C_TILE_BOXES - TC_DEFER + d, m0, n0, wg, t);
}
// [store]

/**
 * @brief Persistent cluster GEMM on the tensor cores, fed by TMA: the
 *        blocks of a cluster take vertically adjacent C tiles together;
 *        one thread of warpgroup 0 copies the A tile and multicasts its
 *        part of the B tile to the cluster, warpgroups 1 and 2 multiply.
 * @param M, N, K  problem size
 * @param map_a  tensor map of A (M x K, BF16), boxes of TC_BM rows x TC_BK
 * @param map_b  tensor map of B (K x N, BF16), boxes of TC_BK rows x 64 (a panel)
 * @param map_c  tensor map of C (M x N, FP32), boxes of TC_C_BOX_ROWS x TC_C_BOX_COLS
 * @param C      output (M x N, FP32)
 * @param c_tma  1: C leaves through map_c (store_tile_tma()); 0 (C's rows not
 *               16-byte aligned, or TC_TMA_STORE=0): from registers
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_tma_multicast_tc(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_c,
                      float *__restrict__ C, int c_tma)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = align1024(smem_raw); /* TC_STAGES x (A tile + B tile), then the store boxes */
    __shared__ uint64_t full[TC_STAGES];  /* stage s holds its K tile: the A tile and every part landed */
    __shared__ uint64_t empty[TC_STAGES]; /* stage s may be refilled: every consumer warp of the cluster arrived */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = blockIdx.x % TC_CLUSTER */

    /* A cluster-tile: TC_CLUSTER C tiles one above the other; block rank r
     * computes the r-th. The clusters walk them in chapter 04's grouped
     * order, cluster c taking c, c + clusters, ... */
    const int tiles_m = (M + TC_BM - 1) / TC_BM, tiles_n = (N + TC_BN - 1) / TC_BN;
    const int units_m = (tiles_m + TC_CLUSTER - 1) / TC_CLUSTER, units = units_m * tiles_n;
    const int k_tiles = (K + TC_BK - 1) / TC_BK;
    const int first = blockIdx.x / TC_CLUSTER, step = gridDim.x / TC_CLUSTER;

    // [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < TC_STAGES; ++s) {
            mbar_init(&full[s], 1); /* the own producer's arrive.expect_tx; then the bytes */
            mbar_init(&empty[s], TC_CLUSTER * TC_CONSUMER_WARPS);
        }
        fence_mbar_init(); /* visible to the copy engine and to the cluster */
    }
    /* No peer multicasts into, or arrives on, barriers that do not exist yet. */
    TRACE_BEGIN(t_init);
    cluster.sync();
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    // [init]

    if (threadIdx.x < TC_PRODUCERS) {
        // [producer]
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(TC_PRODUCER_REGS));
        if (threadIdx.x == 0) {
            const uint16_t cluster_mask = (uint16_t)((1u << TC_CLUSTER) - 1); /* every block of the cluster */
            int it = 0; /* K steps issued so far, over all tiles: stage it % TC_STAGES */
            for (int u = first; u < units; u += step) {
                int um, tn;
                grouped_tile_coords(u, units_m, tiles_n, TC_GROUP, &um, &tn);
                const int m0 = (um * TC_CLUSTER + rank) * TC_BM, n0 = tn * TC_BN;
                for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                    const int s = it % TC_STAGES;
                    TRACE_BEGIN(t_wait);
                    mbar_wait_cta(&empty[s], ((it / TC_STAGES) & 1) ^ 1); /* every block of the cluster read it */
                    TRACE_END(t_wait, TRACE_WAIT_EMPTY, kt);
                    TRACE_BEGIN(t_issue);
                    /* The whole stage lands here: the own A tile, the own part of
                     * B and the peers' parts. */
                    mbar_arrive_expect_tx(&full[s], TC_STAGE_BYTES);
                    tma_load_2d(stage_a_tc(ring, s), &map_a, kt * TC_BK, m0, &full[s]); /* (column k, row m) */
                    for (int p = rank * TC_PART_PANELS; p < (int)(rank + 1) * TC_PART_PANELS; ++p) {
                        uint8_t *panel = stage_b_tc(ring, s) + p * TC_PANEL_BYTES;
                        if (TC_CLUSTER > 1) /* (column n, row k) */
                            tma_load_2d_multicast(panel, &map_b, n0 + p * 64, kt * TC_BK, &full[s], cluster_mask);
                        else
                            tma_load_2d(panel, &map_b, n0 + p * 64, kt * TC_BK, &full[s]);
                    }
                    TRACE_END(t_issue, TRACE_ISSUE, kt);
                }
            }
        }
        // [producer]
    } else {
        // [consumer]
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(TC_CONSUMER_REGS));
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, lane = threadIdx.x % WG_THREADS;
        uint8_t *staging = ring + TC_STAGES * TC_STAGE_BYTES;
        float carry[TC_DEFER * TC_C_PER_BOX + 1]; /* the last tile's carried boxes (+1: never of size 0) */
        int carry_m0 = -1, carry_n0 = 0;          /* where they go in C; -1: nothing carried */
        int it = 0;
        for (int u = first; u < units; u += step) {
            int um, tn;
            grouped_tile_coords(u, units_m, tiles_n, TC_GROUP, &um, &tn);
            float acc[TC_ACC] = {};
            for (int kt = 0; kt < k_tiles; ++kt, ++it) {
                const int s = it % TC_STAGES;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&full[s], (it / TC_STAGES) & 1); /* the A tile and every part landed */
                TRACE_END(t_wait, TRACE_WAIT_FULL, kt);
                TRACE_BEGIN(t_math);
                mma_tile(acc, smem_addr(stage_a_tc(ring, s)), smem_addr(stage_b_tc(ring, s)), wg);
                /* While they run: the last tile's carried box d at K step
                 * 1 + d * TC_DEFER_STRIDE. */
                if (carry_m0 >= 0 && kt % TC_DEFER_STRIDE == 1) {
                    TRACE_BEGIN(t_carry); /* a store step inside the multiply step */
                    store_carried(&map_c, staging, carry, kt / TC_DEFER_STRIDE, kt / TC_DEFER_STRIDE, carry_m0,
                                  carry_n0, wg, lane);
                    TRACE_END(t_carry, TRACE_STORE, kt);
                }
                wgmma_wait(0); /* the tensor cores are done reading stage s */
                wgmma_touch(acc, TC_ACC);
                TRACE_END(t_math, TRACE_COMPUTE, kt);
                /* Release stage s in every block of the cluster, one arrival
                 * per warp: the peers' producers multicast their parts into it. */
                if (lane % 32 == 0) {
                    mbar_arrive_local(&empty[s]);
                    for (int q = 1; q < TC_CLUSTER; ++q)
                        mbar_arrive_cluster_reader(&empty[s], (rank + q) % TC_CLUSTER);
                }
            }
            TRACE_BEGIN(t_store);
            if (c_tma) {
                /* the carried boxes a K loop this short did not reach */
                if (carry_m0 >= 0)
                    store_carried(&map_c, staging, carry, (k_tiles + TC_DEFER_STRIDE - 2) / TC_DEFER_STRIDE,
                                  TC_DEFER - 1, carry_m0, carry_n0, wg, lane);
                carry_m0 = (um * TC_CLUSTER + rank) * TC_BM;
                carry_n0 = tn * TC_BN;
                store_tile_tma(&map_c, staging, acc, carry, carry_m0, carry_n0, wg, lane);
            } else
                store_tile_tc(C, acc, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, M, N, wg, lane);
            TRACE_END(t_store, TRACE_STORE, -1);
        }
        TRACE_BEGIN(t_last); /* the last tile's carried boxes: no K loop to go with */
        if (carry_m0 >= 0) store_carried(&map_c, staging, carry, 0, TC_DEFER - 1, carry_m0, carry_n0, wg, lane);
        TRACE_END(t_last, TRACE_STORE, -1);
        if (c_tma && lane % 32 == 0) bulk_wait_all(); /* the boxes are read, and C written, before the block ends */
        // [consumer]
    }
    // [exit]
    /* Peers may still arrive on this block's barriers, and their multicasts
     * land in it: no block leaves before all are done. */
    TRACE_BEGIN(t_exit);
    cluster.sync();
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    // [exit]
}
// [kernel]

/* ------------------------------------------------------------------- host */

/* The number of clusters that can be resident at once (asked once). */
static int resident_clusters;

/* Buffers with rows padded to 16 bytes, for shapes a tensor map cannot
 * describe as they lie; grown as needed and kept. */
static uint16_t *padded[2];
static size_t padded_bytes[2];

// [pad]
/**
 * @brief Point *@p p at a copy of its @p rows x @p cols BF16 matrix whose
 *        rows start at multiples of 16 bytes, where they do not already,
 *        and set *@p pitch to the row stride in bytes: cudaMemcpy2DAsync
 *        into buffer @p which (0: A, 1: B), in @p stream.
 */
static cudaError_t rows_16_aligned(const uint16_t **p, size_t *pitch, int rows, int cols, int which,
                                   cudaStream_t stream)
{
    *pitch = (size_t)cols * sizeof(uint16_t);
    if (cols % 8 == 0 && (uintptr_t)*p % 16 == 0) return cudaSuccess;
    const size_t padded_pitch = (size_t)(cols + 7) / 8 * 8 * sizeof(uint16_t), bytes = padded_pitch * rows;
    cudaError_t err;
    if (padded_bytes[which] < bytes) {
        if ((err = cudaFree(padded[which])) != cudaSuccess ||
            (err = cudaMalloc((void **)&padded[which], bytes)) != cudaSuccess)
            return err;
        padded_bytes[which] = bytes;
    }
    err = cudaMemcpy2DAsync(padded[which], padded_pitch, *p, *pitch, *pitch, rows, cudaMemcpyDeviceToDevice, stream);
    *p = padded[which];
    *pitch = padded_pitch;
    return err;
}
// [pad]

// [launch]
extern "C" cudaError_t launch_gemm_tma_multicast_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B,
                                                    float *C, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    size_t lda, ldb;
    cudaError_t err = smem_opt_in((const void *)gemm_tma_multicast_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    if (resident_clusters == 0) {
        if ((err = resident_clusters_of((const void *)gemm_tma_multicast_tc, TC_WS_THREADS, TC_SMEM, TC_CLUSTER,
                                        &resident_clusters)) != cudaSuccess)
            return err;
        if (resident_clusters < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
    }
    if ((err = rows_16_aligned(&A, &lda, M, K, 0, stream)) != cudaSuccess ||
        (err = rows_16_aligned(&B, &ldb, K, N, 1, stream)) != cudaSuccess)
        return err;
    /* Tensor maps, made on the host each call (a few microseconds, while
     * the GPU runs the previous work): A in boxes of TC_BM rows x TC_BK,
     * B in panels of TC_BK rows x 64, both 128 bytes wide, swizzled. */
    CUtensorMap map_a, map_b, map_c = {}; /* map_c stays zeros, unread, where C is stored from registers */
    char why[160];
    if (tma_map_2d_bf16(&map_a, A, M, K, lda, TC_BM, TC_BK, 128, why, sizeof why) ||
        tma_map_2d_bf16(&map_b, B, K, N, ldb, TC_BK, 64, 128, why, sizeof why)) {
        fprintf(stderr, "07_tma_multicast: tma_multicast_tc: no tensor map for A or B: %s\n", why);
        return cudaErrorInvalidValue;
    }
    /* C in boxes of one warp's 16 rows x 32 columns, swizzled as the
     * boxes in shared memory are written. Its rows must start at multiples
     * of 16 bytes too (N a multiple of 4); other shapes store from
     * registers, as chapter 06 does, instead of padding C. */
    const int c_tma = TC_TMA_STORE && tma_map_2d(&map_c, C, M, N, (size_t)N * sizeof(float), TC_C_BOX_ROWS,
                                                 TC_C_BOX_COLS, 128, NULL, 0) == 0;
    const int units = (((M + TC_BM - 1) / TC_BM + TC_CLUSTER - 1) / TC_CLUSTER) * ((N + TC_BN - 1) / TC_BN);
    const int clusters = units < resident_clusters ? units : resident_clusters;
    cluster_launch_config(&cfg, &attr, dim3(clusters * TC_CLUSTER), dim3(TC_WS_THREADS), TC_SMEM, stream,
                          dim3(TC_CLUSTER, 1, 1));
    err = cudaLaunchKernelEx(&cfg, gemm_tma_multicast_tc, M, N, K, map_a, map_b, map_c, C, c_tma);
    return err != cudaSuccess ? err : cudaGetLastError();
}
// [launch]
SMEM_REPORT(tma_multicast_tc, TC_SMEM)
