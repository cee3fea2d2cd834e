/**
 * @file 04_persistent/knobs.h
 * @brief What chapter 04's knobs imply, for kernel.cu, variants.cu and
 *        pingpong.cu. The knobs' defaults and meanings live in the Makefile
 *        (make help), which passes them (make chapter-04 GROUP=1); chapter
 *        06, which compiles kernel.cu as a baseline, passes this chapter's.
 */
#ifndef CH04_KNOBS_H
#define CH04_KNOBS_H

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(PRODUCER_WARPS) || !defined(MIN_BLOCKS) || !defined(GROUP)
#error "BM BN BK STAGES PRODUCER_WARPS MIN_BLOCKS GROUP: set by 04_persistent/Makefile (make help lists them); build with make"
#endif

/* The block's roles, which the knobs imply (BLOCKED_THREADS: 01_naive/blocked.cuh). */
#define CONSUMER_THREADS BLOCKED_THREADS       /**< threads that compute: one 8x8 block each */
#define PRODUCER_THREADS (PRODUCER_WARPS * 32) /**< threads that copy */
#define BAR_FETCH 2 /**< named barrier: the producers share the tile index just fetched */
static_assert(PRODUCER_WARPS >= 1 && (BM * BK / 4) % PRODUCER_THREADS == 0 &&
                  (BK * BN / 4) % PRODUCER_THREADS == 0,
              "the producer threads must split the A and B tiles evenly");

#endif
