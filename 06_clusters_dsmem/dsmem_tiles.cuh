/**
 * @file 06_clusters_dsmem/dsmem_tiles.cuh
 * @brief Chapter 06's producer steps, for kernel.cu and variants.cu: a
 *        thread's share of a K tile loaded into registers (a block loads
 *        only its 1/CLUSTER of the A tile's rows), and stored into a stage
 *        that may lie in a peer block's shared memory (DSMEM); the
 *        launch configuration. Include after knobs.h, 01_naive/blocked.cuh,
 *        02_double_buffer/async_copy.cuh and common/cluster.cuh.
 */
#ifndef CH06_DSMEM_TILES_CUH
#define CH06_DSMEM_TILES_CUH

#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32) /**< threads that load */
#define WS_THREADS (PRODUCER_THREADS + CONSUMER_THREADS) /**< threads per block */
#define A_ROWS (BM / CLUSTER) /**< rows of each A tile that one block loads for the cluster */
static_assert(CLUSTER == 1 || CLUSTER == 2 || CLUSTER == 4 || CLUSTER == 8,
              "CLUSTER must be 1, 2, 4 or 8 (the portable cluster sizes)");
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert((A_ROWS * BK / 4) % PRODUCER_THREADS == 0 && (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads must split the A part and the B tile evenly");
static_assert(WS_THREADS <= 1024, "too many threads per block");

#define A_LOADS (A_ROWS * BK / 4 / PRODUCER_THREADS) /**< float4 loads of A per producer thread per tile */
#define B_LOADS (BK * BN / 4 / PRODUCER_THREADS)     /**< float4 loads of B per producer thread per tile */

/**
 * @brief A producer thread's share of K tile @p k0: its pieces of the
 *        block's A_ROWS rows of the A tile (rows from @p a_row0) and of
 *        the B tile, into registers (zeros outside the matrices).
 */
__device__ __forceinline__ void load_tiles(float4 a_part[A_LOADS], float4 b_tile[B_LOADS],
                                           const float *__restrict__ A, const float *__restrict__ B, int M,
                                           int N, int K, int a_row0, int n0, int k0, bool a_vec, bool b_vec)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        const int e = threadIdx.x + l * PRODUCER_THREADS;
        a_part[l] = load4_or_zero(A, a_row0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, M, K, a_vec);
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
        const int e = threadIdx.x + l * PRODUCER_THREADS;
        b_tile[l] = load4_or_zero(B, k0 + e / (BN / 4), n0 + (e % (BN / 4)) * 4, K, N, b_vec);
    }
}

/**
 * @brief Store the thread's pieces of the A part (tile rows from @p row0)
 *        into the A tile @p As of a stage, transposed as chapter 01 does;
 *        @p As may point into a peer block's shared memory (DSMEM).
 */
__device__ __forceinline__ void store_a_part(float (*As)[BM + A_PAD], const float4 a_part[A_LOADS], int row0)
{
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        const int e = threadIdx.x + l * PRODUCER_THREADS;
        const int r = row0 + e / (BK / 4), c = (e % (BK / 4)) * 4;
        As[c + 0][r] = a_part[l].x;
        As[c + 1][r] = a_part[l].y;
        As[c + 2][r] = a_part[l].z;
        As[c + 3][r] = a_part[l].w;
    }
}

/** @brief Dynamic shared memory of one block: the ring, as chapter 03. */
static const size_t cluster_smem = (size_t)STAGES * STAGE_FLOATS * sizeof(float);

/** @brief The launch configuration for an M x N problem in clusters of @p cluster blocks of @p threads. */
static void cluster_gemm_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int M, int N, int cluster,
                                cudaStream_t stream, unsigned threads = WS_THREADS)
{
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM;
    /* The grid must be a multiple of the cluster: round the row of tiles up
     * (the extra blocks load their share of A and store nothing). */
    cluster_launch_config(cfg, attr, dim3((tiles_n + cluster - 1) / cluster * cluster, tiles_m), dim3(threads),
                          cluster_smem, stream, dim3(cluster, 1, 1));
}

#endif
