/**
 * @file 07_tma_multicast/knobs.h
 * @brief Chapter 07's tile sizes and tuning knobs, for kernel.cu and
 *        variants.cu. The Makefile passes the knobs (make chapter-07
 *        CLUSTER_M=2 CLUSTER_N=2); the tile sizes are fixed.
 */
#ifndef CH07_KNOBS_H
#define CH07_KNOBS_H

#define BM 128 /**< rows of C per block (as chapters 01-06) */
#define BN 128 /**< columns of C per block (as chapters 01-06) */
#define BK 32  /**< K per tile (a row-major A tile row is 128 bytes, the 128-byte swizzle's span) */
#ifndef STAGES
#define STAGES 4 /**< tiles the ring holds (2: double buffering) */
#endif
#ifndef CLUSTER_M
#define CLUSTER_M 2 /**< multicast kernels: blocks per cluster along M (they share B tiles) */
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 1 /**< multicast kernels: blocks per cluster along N (they share A tiles) */
#endif

/* The block's roles and the B tile, the same in every kernel of the chapter
 * (BLOCKED_THREADS: 01_naive/blocked.cuh). */
#define CONSUMER_THREADS BLOCKED_THREADS    /**< threads that compute: one 8x8 block each */
#define TMA_THREADS (32 + CONSUMER_THREADS) /**< one producer warp (one thread issues), then the consumers */
#define B_TILE_FLOATS (BK * BN)             /**< Bs[BK][BN] */
/* Registers: the 9 warps are spread over the SM's four schedulers, each
 * with 16384 registers, so one of them holds 3 warps: 168 registers per
 * thread at most (ptxas derives this from __launch_bounds__). */
static_assert(STAGES >= 2 && STAGES <= 6, "STAGES must be 2..6 (227 KB of shared memory)");
static_assert(CLUSTER_M * CLUSTER_N <= 8 && BK % CLUSTER_M == 0 && BK % CLUSTER_N == 0,
              "a cluster of at most 8 that splits the tiles evenly");

#endif
