/**
 * @file 03_warp_specialized/knobs.h
 * @brief Chapter 03's tuning knobs and their defaults, for kernel.cu and
 *        variants.cu. The Makefile passes them (make chapter-03 STAGES=6);
 *        a later chapter that compiles this kernel as its baseline gets
 *        these defaults.
 */
#ifndef CH03_KNOBS_H
#define CH03_KNOBS_H

#ifndef BM
#define BM 128 /**< rows of C per block */
#endif
#ifndef BN
#define BN 128 /**< columns of C per block */
#endif
#ifndef BK
#define BK 32 /**< depth of one A/B tile along K */
#endif
#ifndef STAGES
#define STAGES 4 /**< tiles the ring holds (2: double buffering) */
#endif
#ifndef PRODUCER_WARPS
#define PRODUCER_WARPS 4 /**< warps that only copy tiles */
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /**< blocks per SM the register budget must allow */
#endif

/* The block's roles, which the knobs imply (BLOCKED_THREADS: 01_naive/blocked.cuh). */
#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32) /**< threads that copy */
static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8");
static_assert(PRODUCER_WARPS >= 1 && (BM * BK / 4) % PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads must split the A and B tiles evenly");

#endif
