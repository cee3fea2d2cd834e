/**
 * @file 07_tma_multicast/store_tc.cu
 * @brief Chapter 07 on the tensor cores, a second step: tma_store_tc,
 *        tma_multicast_tc with C stored by TMA too, part of it during the
 *        next tile's K loop.
 *
 * Each warp writes its 16 rows of accumulators, 32 columns (a 2 KB box) at
 * a time, into one of two places in shared memory, and one lane has the
 * copy engine store the box to C in whole 128-byte rows while the warp
 * fills the other place. A warp waits before refilling a place until the
 * copy engine has read it, so a tile's last boxes would wait for its first
 * ones while the tensor cores idle: the warp stores its first boxes at the
 * tile's end and carries the last TC_CARRIED in registers into the next
 * tile, storing one every TC_DEFER_STRIDE K steps while its multiplies run
 * (carry.cuh). C whose rows are not 16-byte aligned is stored from
 * registers, as in the lesson.
 *
 * Parent: kernel_tc.cu (make diff-store_tc). Knobs: make help (TC_DEFER).
 * Built for sm_90 and later.
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
#include "../03_warp_specialized/regs.cuh" /* LAUNCH_REGS(), CHECK_REG_SPLIT(), warpgroup_set_registers() */
#include "../04_persistent/tile_order.cuh" /* grouped_tile_coords() */
#include "../06_clusters_dsmem/cluster.cuh" /* cluster-wide mbarriers, cluster_launch_config() */
#include "tma.cuh" /* TMA copies that complete on them */
#include "tensor_map.h" /* tma_map_2d_bf16(), tma_rows_aligned_bf16(): tensor maps on the host */
#include "carry.cuh" /* the store boxes, TC_CARRIED and its split, carry_box_at(), carry_left_from() */

#if !defined(TC_STAGES) || !defined(TC_CLUSTER) || !defined(TC_GROUP) || !defined(TC_PRODUCER_REGS) || \
    !defined(TC_CONSUMER_REGS) || !defined(TC_DEFER)
#error "TC_STAGES TC_CLUSTER TC_GROUP TC_PRODUCER_REGS TC_CONSUMER_REGS TC_DEFER: set by the chapter's Makefile (make help lists them)"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + TC_C_STAGING + SW128_ATOM_BYTES) /**< ring, boxes, alignment */
#define TC_PART_PANELS (TC_BN / TC_PANEL_COLS / TC_CLUSTER) /**< panels of each B tile one block copies for the cluster */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_STORE_PRODUCER_REGS, TC_STORE_CONSUMER_REGS);

extern "C" const char gemm_tma_store_tc_knobs[] =
    TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_CLUSTER) KNOB(TC_GROUP) " TC_DEFER=" STR(TC_CARRIED)
    REG_SPLIT_KNOBS(TC_STORE_PRODUCER_REGS, TC_STORE_CONSUMER_REGS);

namespace cg = cooperative_groups;

// [store]
/**
 * @brief Store box @p q of this warp's accumulators (its 16 x 32 piece
 *        that holds values q x TC_C_PER_BOX on, tc_acc_pos(), of the tile
 *        at (@p m0, @p n0)) from the TC_C_PER_BOX values @p v, thread @p t
 *        of warpgroup @p wg: the warp writes them into one of its two
 *        places for a box in shared memory (@p staging holds every warp's),
 *        laid out as the map's 128-byte swizzle wants them, then one lane
 *        has the copy engine store the box. The copy engine writes whole
 *        128-byte rows and leaves out what lies outside C. No warp waits
 *        for another.
 */
__device__ __forceinline__ void store_box(const CUtensorMap *map_c, uint8_t *staging, const float *v, int q, int m0,
                                          int n0, int wg, int t)
{
    const int warp = t / 32, lane = t % 32;
    uint8_t *box = staging + ((wg * WG_THREADS / 32 + warp) * TC_C_BOXES + q % TC_C_BOXES) * TC_C_BOX_BYTES;
    int r0, c0; /* the piece's first row and column: the thread's first value is at (lane / 4, 2 (lane % 4)) of it */
    tc_acc_pos(t, q * TC_C_PER_BOX, &r0, &c0);
    r0 -= lane / 4;
    c0 -= lane % 4 * 2;
    /* The store issued TC_C_BOXES boxes ago (in this tile or the last) has
     * read the box in this place: the lane that issued it waits. */
    if (lane == 0) bulk_wait_read<TC_C_BOXES - 1>();
    __syncwarp();
#pragma unroll
    for (int j = 0; j < TC_C_PER_BOX; j += 2) {
        int r, c;
        tc_acc_pos(t, q * TC_C_PER_BOX + j, &r, &c);
        r -= r0; /* a multiple of 8 less: keeps r % 8, the swizzle's row */
        c -= c0; /* two adjacent columns: half of a 16-byte chunk, which the swizzle moves whole */
        *reinterpret_cast<float2 *>(box + sw128_offset(r, c / 4) + c % 4 * 4) = make_float2(v[j], v[j + 1]);
    }
    fence_proxy_async(); /* the copy engine reads what these lanes wrote */
    __syncwarp();
    if (lane == 0) {
        /* (column n, row m) */
        tma_store_2d(map_c, box, n0 + c0, m0 + wg * 64 + r0);
        bulk_commit();
    }
}

/** @brief A warp's carried boxes (carry.cuh): this thread's values of them, and the tile of C they belong to. */
struct carried_tc {
    float v[TC_CARRIED > 0 ? TC_CARRIED * TC_C_PER_BOX : 1]; /**< this thread's values of them (C++ has no empty arrays) */
    int m0;    /**< the first row of their tile in C */
    int n0;    /**< its first column */
    bool held; /**< whether there are any: none before the first tile's end */
};

/**
 * @brief At a tile's end: store the boxes of warpgroup @p wg's 64 x TC_BN
 *        accumulators (thread @p t of it) that are not carried into the
 *        next tile, the first TC_C_TILE_BOXES - TC_CARRIED of each warp, and
 *        carry the others' values in @p carry, with the tile (@p m0, @p n0).
 */
__device__ __forceinline__ void store_tile_tma(const CUtensorMap *map_c, uint8_t *staging, const float acc[TC_ACC],
                                               carried_tc *carry, int m0, int n0, int wg, int t)
{
#pragma unroll
    for (int q = 0; q < TC_C_TILE_BOXES - TC_CARRIED; ++q)
        store_box(map_c, staging, acc + q * TC_C_PER_BOX, q, m0, n0, wg, t);
#pragma unroll
    for (int j = 0; j < TC_CARRIED * TC_C_PER_BOX; ++j)
        carry->v[j] = acc[(TC_C_TILE_BOXES - TC_CARRIED) * TC_C_PER_BOX + j];
    carry->m0 = m0;
    carry->n0 = n0;
    carry->held = true;
}

/**
 * @brief Store the carried boxes @p first to TC_CARRIED - 1, or only
 *        @p first if @p one (boxes TC_C_TILE_BOXES - TC_CARRIED + d of the
 *        tile they belong to). The unrolled test keeps the indices of
 *        @p carry's values constant, so they stay in registers.
 */
__device__ __forceinline__ void store_carried(const CUtensorMap *map_c, uint8_t *staging, const carried_tc *carry,
                                              int first, bool one, int wg, int t)
{
#pragma unroll
    for (int d = 0; d < TC_CARRIED; ++d)
        if (carry->held && (one ? d == first : d >= first))
            store_box(map_c, staging, carry->v + d * TC_C_PER_BOX, TC_C_TILE_BOXES - TC_CARRIED + d, carry->m0,
                      carry->n0, wg, t);
}
// [store]


/**
 * @brief tma_multicast_tc whose consumers store C through TMA, carrying
 *        each warp's last TC_CARRIED boxes into the next tile's K loop.
 * @param M, N, K  problem size
 * @param map_a  tensor map of A (M x K, BF16), boxes of TC_BM rows x TC_BK
 * @param map_b  tensor map of B (K x N, BF16), boxes of TC_BK rows x TC_PANEL_COLS (a panel)
 * @param map_c  tensor map of C (M x N, FP32), boxes of TC_C_BOX_ROWS x TC_C_BOX_COLS
 * @param C      output (M x N, FP32)
 * @param c_tma  1: C leaves through map_c; 0 (C's rows not 16-byte aligned): from registers
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_tma_store_tc(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
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
        warpgroup_set_registers<TC_STORE_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
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
                            tma_load_2d_multicast(panel, &map_b, n0 + p * TC_PANEL_COLS, kt * TC_BK, &full[s],
                                                  cluster_mask);
                        else
                            tma_load_2d(panel, &map_b, n0 + p * TC_PANEL_COLS, kt * TC_BK, &full[s]);
                    }
                    TRACE_END(t_issue, TRACE_ISSUE, kt);
                }
            }
        }
        // [producer]
    } else {
        // [consumer]
        warpgroup_set_registers<TC_STORE_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
        uint8_t *staging = ring + TC_STAGES * TC_STAGE_BYTES;
        carried_tc carry; /* the last tile's carried boxes */
        carry.held = false;
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
                /* While they run: the last tile's carried box of this K step, if any. */
                const int d = carry_box_at(kt, TC_CARRIED, TC_DEFER_STRIDE);
                if (d >= 0) {
                    TRACE_BEGIN(t_carry); /* a store step inside the multiply step */
                    store_carried(&map_c, staging, &carry, d, true, wg, wg_thread);
                    TRACE_END(t_carry, TRACE_STORE, kt);
                }
                mma_wait(acc); /* the tensor cores are done reading stage s */
                TRACE_END(t_math, TRACE_COMPUTE, kt);
                /* Release stage s in every block of the cluster, one arrival
                 * per warp: the peers' producers multicast their parts into it. */
                if (wg_thread % 32 == 0) {
                    mbar_arrive_local(&empty[s]);
                    for (int q = 1; q < TC_CLUSTER; ++q)
                        mbar_arrive_cluster_reader(&empty[s], (rank + q) % TC_CLUSTER);
                }
            }
            TRACE_BEGIN(t_store);
            if (c_tma) {
                /* the carried boxes a K loop this short did not reach, then this tile's */
                store_carried(&map_c, staging, &carry, carry_left_from(k_tiles, TC_DEFER_STRIDE), false,
                              wg, wg_thread);
                store_tile_tma(&map_c, staging, acc, &carry, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, wg,
                               wg_thread);
            } else
                store_tile_tc(C, acc, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, M, N, wg, wg_thread);
            TRACE_END(t_store, TRACE_STORE, -1);
        }
        TRACE_BEGIN(t_last); /* the last tile's carried boxes: no K loop to go with */
        store_carried(&map_c, staging, &carry, 0, false, wg, wg_thread);
        TRACE_END(t_last, TRACE_STORE, -1);
        if (c_tma && wg_thread % 32 == 0) bulk_wait_all(); /* the boxes are read, and C written, before the block ends */
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

// [launch]
extern "C" cudaError_t launch_gemm_tma_store_tc(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                                cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    size_t lda, ldb;
    cudaError_t err = smem_opt_in((const void *)gemm_tma_store_tc, TC_SMEM);
    if (err != cudaSuccess) return err;
    if (resident_clusters == 0) {
        if ((err = resident_clusters_of((const void *)gemm_tma_store_tc, TC_WS_THREADS, TC_SMEM, TC_CLUSTER,
                                        &resident_clusters)) != cudaSuccess)
            return err;
        if (resident_clusters < 1) return cudaErrorInvalidConfiguration; /* cannot be resident at all */
    }
    /* Where A's or B's rows are not 16-byte aligned, a copy whose rows are
     * (tensor_map.c), freed in stream order after the kernel. */
    void *pad_a = NULL, *pad_b = NULL;
    if ((err = tma_rows_aligned_bf16(&A, &lda, M, K, &pad_a, stream)) == cudaSuccess &&
        (err = tma_rows_aligned_bf16(&B, &ldb, K, N, &pad_b, stream)) == cudaSuccess) {
        /* Tensor maps, made on the host each call (a few microseconds, while
         * the GPU runs the previous work): A in boxes of TC_BM rows x TC_BK,
         * B in panels of TC_BK rows x TC_PANEL_COLS, both 128 bytes wide, swizzled. */
        CUtensorMap map_a, map_b, map_c = {}; /* map_c stays zeros, unread, where C is stored from registers */
        char why[160];
        if (tma_map_2d_bf16(&map_a, A, M, K, lda, TC_BM, TC_BK, SW128_ROW_BYTES, why, sizeof why) ||
            tma_map_2d_bf16(&map_b, B, K, N, ldb, TC_BK, TC_PANEL_COLS, SW128_ROW_BYTES, why, sizeof why)) {
            fprintf(stderr, "tma_store_tc: no tensor map for A or B: %s\n", why);
            err = cudaErrorInvalidValue;
        } else {
            /* C in boxes of 16 rows x 32 columns, swizzled as the boxes in
             * shared memory are written. Its rows must start at multiples of
             * 16 bytes too (N a multiple of 4); other shapes store from
             * registers, as the lesson does, instead of padding C. */
            const int c_tma = tma_map_2d(&map_c, C, M, N, (size_t)N * sizeof(float), TC_C_BOX_ROWS, TC_C_BOX_COLS,
                                         SW128_ROW_BYTES, NULL, 0) == 0;
            const int units = (((M + TC_BM - 1) / TC_BM + TC_CLUSTER - 1) / TC_CLUSTER) * ((N + TC_BN - 1) / TC_BN);
            const int clusters = units < resident_clusters ? units : resident_clusters;
            cluster_launch_config(&cfg, &attr, dim3(clusters * TC_CLUSTER), dim3(TC_WS_THREADS), TC_SMEM, stream,
                                  dim3(TC_CLUSTER, 1, 1));
            err = cudaLaunchKernelEx(&cfg, gemm_tma_store_tc, M, N, K, map_a, map_b, map_c, C, c_tma);
            if (err == cudaSuccess) err = cudaGetLastError();
        }
    }
    return tma_padding_free(pad_b, stream, tma_padding_free(pad_a, stream, err));
}
// [launch]
SMEM_REPORT(tma_store_tc, TC_SMEM)
