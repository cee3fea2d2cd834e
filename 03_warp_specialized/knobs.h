/**
 * @file 03_warp_specialized/knobs.h
 * @brief What chapter 03's knobs imply, for kernel.cu and variants.cu.
 *        The knobs' defaults and meanings live in the Makefile (make help),
 *        which passes them (make chapter-03 STAGES=6); a later chapter that
 *        compiles this kernel as its baseline passes this chapter's.
 */
#ifndef CH03_KNOBS_H
#define CH03_KNOBS_H

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(PRODUCER_WARPS) || !defined(MIN_BLOCKS)
#error "BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS: set by 03_warp_specialized/Makefile (make help lists them); build with make"
#endif

/* The block's roles, which the knobs imply (BLOCKED_THREADS: 01_naive/blocked.cuh). */
#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32) /**< threads that copy */
static_assert(PRODUCER_WARPS >= 1 && (BM * BK / 4) % PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads must split the A and B tiles evenly");

#endif
