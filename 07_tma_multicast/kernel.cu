/**
 * @file 07_tma_multicast/kernel.cu
 * @brief Chapter 07: the Tensor Memory Accelerator. The warp-specialized
 *        ring of chapters 03 and 06, with the producer warps replaced by
 *        one thread that issues one TMA copy per tile, and then TMA
 *        multicast: one copy lands in every block of the cluster that
 *        needs the tile.
 *
 * Chapter 06's producers spent 256 threads on loads, address arithmetic
 * and (through DSMEM) stores. A TMA copy is one instruction: the tensor
 * map (made on the host, tensor_map.c) tells the copy engine the matrix's
 * shape and strides, the instruction names a tile by its coordinates,
 * and the engine moves the bytes and fills what lies outside the matrix
 * with zeros. The stage's full barrier learns how many bytes to expect
 * (`mbarrier.arrive.expect_tx`) and completes when they have landed.
 *
 * With CLUSTER_M x CLUSTER_N > 1, the blocks of a cluster sit on a
 * CLUSTER_M x CLUSTER_N patch of C tiles. Blocks in one row of the patch
 * need the same A tile: each issues 1/CLUSTER_N of it with
 * `.multicast::cluster` to all of them. Blocks in one column need the same
 * B tile, shared the same way along the other dimension. Since a block's
 * stage is now written by its row's and column's producers, those blocks'
 * consumers must all have released it before any of them refills it: the
 * empty barrier counts arrivals from the whole row and column.
 *
 * TMA cannot transpose, so each call first writes A^T (staging.cu) and the
 * A tile arrives as chapters 01-06 store it (As[k][m]): the consumers run
 * chapter 01's compute step unchanged. Reading A as it lies, with the
 * 128-byte swizzle and no transpose pass, is measured as its own kernel in
 * variants.cu, as is a cluster-scope release by the consumers.
 *
 * Parent: chapter 06 (06_clusters_dsmem/kernel.cu); `make diff-07` shows
 * what this changes.
 *
 * Knobs: STAGES; CLUSTER_M, CLUSTER_N (the multicast kernel's cluster;
 * 1 x 1 is the plain TMA kernel, which is always built as well).
 */
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include "kernel.h"

#include "../common/launch.cuh" /* STR(), smem_opt_in() */
#include "../common/trace.cuh" /* TRACE_BEGIN/END: nothing unless built with TRACE=1 */

#include "knobs.h" /* BM BN BK; STAGES CLUSTER_M CLUSTER_N and their defaults; the roles */
#include "../01_naive/blocked.cuh" /* compute_tile(), store_tile() */
#include "../common/cluster.cuh" /* mbarriers, cluster_launch_config() */
#include "tma.cuh" /* TMA copies that complete on them */
#include "tensor_map.h" /* tma_map_2d(): tensor maps on the host */

#define A_TILE_FLOATS (BK * (BM + A_PAD)) /**< As[BK][BM + A_PAD], as chapters 01-06 */
#define TMA_STAGE_FLOATS (A_TILE_FLOATS + B_TILE_FLOATS) /**< one stage; a multiple of 128 B */
#define TMA_SMEM ((size_t)STAGES * TMA_STAGE_FLOATS * sizeof(float) + 128) /**< + room to align to 128 B */

extern "C" const char gemm_tma_knobs[] = "BM=128 BN=128 BK=32 TM=8 TN=8 STAGES=" STR(STAGES) " CLUSTER=1x1";
extern "C" const char gemm_tma_multicast_knobs[] =
    "BM=128 BN=128 BK=32 TM=8 TN=8 STAGES=" STR(STAGES) " CLUSTER=" STR(CLUSTER_M) "x" STR(CLUSTER_N);

namespace cg = cooperative_groups;

/**
 * @brief TMA GEMM in clusters of CM x CN blocks (1 x 1: no multicast).
 *        Warp 0 is the producer (lane 0 issues the copies), warps 1-8
 *        compute the block's BM x BN tile of C.
 * @tparam CM, CN  cluster size along M and N
 * @param M, N, K  problem size
 * @param C      output (M x N)
 * @param map_a  tensor map of A^T (K x M), boxes of BK/CN rows x BM + A_PAD
 * @param map_b  tensor map of B (K x N), boxes of BK/CM rows x BN
 */
//! [kernel]
template <int CM, int CN>
__global__ void __launch_bounds__(TMA_THREADS, 1) gemm_tma(int M, int N, int K, const __grid_constant__ CUtensorMap map_a,
         const __grid_constant__ CUtensorMap map_b, float *__restrict__ C)
{
    TRACE_SETUP(); /* nothing unless built with TRACE=1 */
    extern __shared__ unsigned char smem_raw[];
    /* TMA writes to 128-byte-aligned shared memory: stages start on such a boundary. */
    float *smem = reinterpret_cast<float *>(((uintptr_t)smem_raw + 127) & ~(uintptr_t)127);
    __shared__ uint64_t full[STAGES];  /* stage s holds tile t: all its bytes landed */
    __shared__ uint64_t empty[STAGES]; /* stage s is free in every block that writes into it */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank(); /* = cx + cy * CN */
    const unsigned cx = rank % CN, cy = rank / CN;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tiles = (K + BK - 1) / BK;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    //! [init]
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(&full[s], 1); /* the own producer's arrive.expect_tx; then the bytes */
            mbar_init(&empty[s], (CM + CN - 1) * CONSUMER_THREADS); /* the row's and column's consumers */
        }
        fence_mbar_init(); /* visible to the copy engine and to the cluster */
    }
    TRACE_BEGIN(t_init);
    cluster.sync(); /* no peer multicasts into, or arrives on, barriers that do not exist yet */
    TRACE_END(t_init, TRACE_CLUSTER_SYNC, -1);
    //! [init]

    if (warp == 0) {
        //! [producer]
        if (lane == 0) {
            /* This block's slices: rows [cx*BM/CN, ...) of the A tile go to its
             * row of the cluster; rows [cy*BK/CM, ...) of the B tile to its column. */
            uint16_t row_mask = 0, col_mask = 0;
            for (int j = 0; j < CN; ++j) row_mask |= (uint16_t)(1u << (cy * CN + j));
            for (int j = 0; j < CM; ++j) col_mask |= (uint16_t)(1u << (j * CN + cx));
            /* A^T's tile is BK rows (k) of BM + A_PAD floats (m; the last A_PAD
             * belong to the next tile or lie outside, and land in the padding). */
            const int a_row = cx * (BK / CN), a_off = a_row * (BM + A_PAD);
            const int b_row = cy * (BK / CM);
            for (int t = 0; t < tiles; ++t) {
                const int s = t % STAGES;
                float *As = smem + s * TMA_STAGE_FLOATS, *Bs = As + A_TILE_FLOATS;
                TRACE_BEGIN(t_wait);
                mbar_wait_cta(&empty[s], ((t / STAGES) & 1) ^ 1);
                TRACE_END(t_wait, TRACE_WAIT_EMPTY, t);
                TRACE_BEGIN(t_issue);
                /* The whole stage arrives here: own slices and the peers'. */
                mbar_arrive_expect_tx(&full[s], TMA_STAGE_FLOATS * sizeof(float));
                const int ax = m0, ay = t * BK + a_row; /* element (column, row) of A^T */
                if (CN > 1)
                    tma_load_2d_multicast(As + a_off, &map_a, ax, ay, &full[s], row_mask);
                else
                    tma_load_2d(As, &map_a, ax, ay, &full[s]);
                if (CM > 1)
                    tma_load_2d_multicast(Bs + b_row * BN, &map_b, n0, t * BK + b_row, &full[s], col_mask);
                else
                    tma_load_2d(Bs, &map_b, n0, t * BK, &full[s]);
                TRACE_END(t_issue, TRACE_ISSUE, t);
            }
        }
        //! [producer]
    } else {
        //! [consumer]
        const int ctid = threadIdx.x - 32;
        const int tx = ctid % (BN / TN), ty = ctid / (BN / TN);
        float acc[TM][TN] = {};
        for (int t = 0; t < tiles; ++t) {
            const int s = t % STAGES;
            const float *As = smem + s * TMA_STAGE_FLOATS;
            TRACE_BEGIN(t_wait);
            mbar_wait_cta(&full[s], (t / STAGES) & 1);
            TRACE_END(t_wait, TRACE_WAIT_FULL, t);
            TRACE_BEGIN(t_math);
            compute_tile(acc, reinterpret_cast<const float(*)[BM + A_PAD]>(As),
                         reinterpret_cast<const float(*)[BN]>(As + A_TILE_FLOATS), tx, ty);
            TRACE_END(t_math, TRACE_COMPUTE, t);
            /* Release stage s in every block whose producer writes into ours:
             * the blocks of this row (A) and of this column (B). A reader's
             * arrive: this thread wrote nothing the producers must see. */
            for (int j = 0; j < CN; ++j) mbar_arrive_cluster_reader(&empty[s], cy * CN + j);
            for (int j = 0; j < CM; ++j)
                if (j != (int)cy) mbar_arrive_cluster_reader(&empty[s], j * CN + cx);
        }
        TRACE_BEGIN(t_store);
        store_tile(C, acc, m0, n0, M, N, tx, ty);
        TRACE_END(t_store, TRACE_STORE, -1);
        //! [consumer]
    }
    //! [exit]
    /* Peers may still arrive on this block's empty barriers: stay until all are done. */
    TRACE_BEGIN(t_exit);
    cluster.sync();
    TRACE_END(t_exit, TRACE_CLUSTER_SYNC, -1);
    //! [exit]
}
//! [kernel]

/* ------------------------------------------------------------------- host */

//! [launch]
template <int CM, int CN>
static cudaError_t launch_tma(int M, int N, int K, const float *A, const float *B, float *C, cudaStream_t stream)
{
    size_t lda = (size_t)K * sizeof(float), ldb = (size_t)N * sizeof(float);
    cudaError_t err;
    /* A^T (and padded copies where needed): the staging pass is part of every call. */
    if ((err = tma_stage(M, N, K, A, B, 1, &A, &B, &lda, &ldb, stream)) != cudaSuccess) return err;
    /* Tensor maps: A^T in boxes of BK/CN rows (k) x BM + A_PAD (m), B in
     * boxes of BK/CM rows x BN. Made on the host each call (a few
     * microseconds, while the GPU runs the previous work). */
    CUtensorMap map_a, map_b;
    char why[160];
    if (tma_map_2d(&map_a, A, K, M, lda, BK / CN, BM + A_PAD, 0, why, sizeof why) ||
        tma_map_2d(&map_b, B, K, N, ldb, BK / CM, BN, 0, why, sizeof why)) {
        fprintf(stderr, "07_tma_multicast: cannot describe the matrix to TMA: %s\n", why);
        return cudaErrorInvalidValue;
    }
    if ((err = smem_opt_in((const void *)gemm_tma<CM, CN>, TMA_SMEM)) != cudaSuccess) return err;
    /* The grid must be a multiple of the cluster in each dimension; the
     * extra blocks' tiles lie outside C (TMA reads zeros, nothing is stored). */
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_launch_config(&cfg, &attr, dim3((tiles_n + CN - 1) / CN * CN, (tiles_m + CM - 1) / CM * CM),
                          dim3(TMA_THREADS), TMA_SMEM, stream, dim3(CN, CM, 1));
    err = cudaLaunchKernelEx(&cfg, gemm_tma<CM, CN>, M, N, K, map_a, map_b, C);
    return err != cudaSuccess ? err : cudaGetLastError();
}
//! [launch]

extern "C" cudaError_t launch_gemm_tma(int M, int N, int K, const float *A, const float *B, float *C,
                                       cudaStream_t stream)
{
    return launch_tma<1, 1>(M, N, K, A, B, C, stream);
}

extern "C" cudaError_t launch_gemm_tma_multicast(int M, int N, int K, const float *A, const float *B, float *C,
                                                 cudaStream_t stream)
{
    return launch_tma<CLUSTER_M, CLUSTER_N>(M, N, K, A, B, C, stream);
}
