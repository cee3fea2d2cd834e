/**
 * @file 07_tma_multicast/kernel_tc.cu
 * @brief Chapter 07 on the tensor cores: tma_multicast_tc, chapter 06's
 *        cluster_tc with its copies done by the Tensor Memory Accelerator,
 *        each part of a B tile multicast to the cluster.
 *
 * One producer thread issues one TMA copy for the A tile and one per
 * 64-column panel of its part of B; a tensor map (tensor_map.c) gives the
 * copy engine the matrix's shape, so the copy lands in wgmma's 128-byte
 * swizzle, fills the edges with zeros and counts its bytes on the stage's
 * full barrier. With `.multicast::cluster` one copy of a part lands in
 * every block of the cluster: no hand-off, and no waiting for it.
 * Shapes whose rows are not 16-byte aligned are padded first
 * (tma_rows_aligned_bf16(), tensor_map.c).
 *
 * Parent: 06_clusters_dsmem/kernel_tc.cu. Knobs: make help. Built for sm_90 and later.
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

#if !defined(TC_STAGES) || !defined(TC_CLUSTER) || !defined(TC_GROUP) || !defined(TC_PRODUCER_REGS) || \
    !defined(TC_CONSUMER_REGS)
#error "TC_STAGES TC_CLUSTER TC_GROUP TC_PRODUCER_REGS TC_CONSUMER_REGS: set by the chapter's Makefile (make help lists them)"
#endif
#define TC_SMEM ((size_t)TC_STAGES * TC_STAGE_BYTES + SW128_ATOM_BYTES) /**< the ring, + room to align to 1024 */
#define TC_PART_PANELS (TC_BN / TC_PANEL_COLS / TC_CLUSTER) /**< panels of each B tile one block copies for the cluster */

#define TC_PRODUCERS WG_THREADS                    /**< one warpgroup copies: setmaxnreg acts on whole warpgroups */
#define TC_WS_THREADS (TC_PRODUCERS + TC_CONSUMERS) /**< threads per block */
#define TC_CONSUMER_WARPS (TC_CONSUMERS / 32) /**< warps that release a stage, one arrival each */
CHECK_REG_SPLIT(TC_WS_THREADS, TC_PRODUCERS, TC_PRODUCER_REGS, TC_CONSUMER_REGS);

extern "C" const char gemm_tma_multicast_tc_knobs[] =
    TC_TILE_KNOBS KNOB(TC_STAGES) KNOB(TC_CLUSTER) KNOB(TC_GROUP)
    REG_SPLIT_KNOBS(TC_PRODUCER_REGS, TC_CONSUMER_REGS);

namespace cg = cooperative_groups;

/**
 * @brief Persistent cluster GEMM on the tensor cores, fed by TMA: the
 *        blocks of a cluster take vertically adjacent C tiles together;
 *        one thread of warpgroup 0 copies the A tile and multicasts its
 *        part of the B tile to the cluster, warpgroups 1 and 2 multiply.
 * @param M, N, K  problem size
 * @param map_a  tensor map of A (M x K, BF16), boxes of TC_BM rows x TC_BK
 * @param map_b  tensor map of B (K x N, BF16), boxes of TC_BK rows x TC_PANEL_COLS (a panel)
 * @param C      output (M x N, FP32)
 */
// [kernel]
__global__ void __launch_bounds__(TC_WS_THREADS, 1)
gemm_tma_multicast_tc(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b, float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ uint8_t smem_raw[];
    uint8_t *ring = align1024(smem_raw); /* TC_STAGES x (A tile + B tile) */
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
        warpgroup_set_registers<TC_PRODUCER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* give most back */
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
        warpgroup_set_registers<TC_CONSUMER_REGS, LAUNCH_REGS(TC_WS_THREADS)>(); /* take them */
        const int wg = (threadIdx.x - TC_PRODUCERS) / WG_THREADS, wg_thread = threadIdx.x % WG_THREADS;
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
            store_tile_tc(C, acc, (um * TC_CLUSTER + rank) * TC_BM, tn * TC_BN, M, N, wg, wg_thread);
            TRACE_END(t_store, TRACE_STORE, -1);
        }
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
    /* Where A's or B's rows are not 16-byte aligned, a copy whose rows are
     * (tensor_map.c), freed in stream order after the kernel. */
    void *pad_a = NULL, *pad_b = NULL;
    if ((err = tma_rows_aligned_bf16(&A, &lda, M, K, &pad_a, stream)) == cudaSuccess &&
        (err = tma_rows_aligned_bf16(&B, &ldb, K, N, &pad_b, stream)) == cudaSuccess) {
        /* Tensor maps, made on the host each call (a few microseconds, while
         * the GPU runs the previous work): A in boxes of TC_BM rows x TC_BK,
         * B in panels of TC_BK rows x TC_PANEL_COLS, both 128 bytes wide, swizzled. */
        CUtensorMap map_a, map_b;
        char why[160];
        if (tma_map_2d_bf16(&map_a, A, M, K, lda, TC_BM, TC_BK, SW128_ROW_BYTES, why, sizeof why) ||
            tma_map_2d_bf16(&map_b, B, K, N, ldb, TC_BK, TC_PANEL_COLS, SW128_ROW_BYTES, why, sizeof why)) {
            fprintf(stderr, "tma_multicast_tc: no tensor map for A or B: %s\n", why);
            err = cudaErrorInvalidValue;
        } else {
            const int units = (((M + TC_BM - 1) / TC_BM + TC_CLUSTER - 1) / TC_CLUSTER) * ((N + TC_BN - 1) / TC_BN);
            const int clusters = units < resident_clusters ? units : resident_clusters;
            cluster_launch_config(&cfg, &attr, dim3(clusters * TC_CLUSTER), dim3(TC_WS_THREADS), TC_SMEM, stream,
                                  dim3(TC_CLUSTER, 1, 1));
            err = cudaLaunchKernelEx(&cfg, gemm_tma_multicast_tc, M, N, K, map_a, map_b, C);
            if (err == cudaSuccess) err = cudaGetLastError();
        }
    }
    return tma_padding_free(pad_b, stream, tma_padding_free(pad_a, stream, err));
}
// [launch]
SMEM_REPORT(tma_multicast_tc, TC_SMEM)
