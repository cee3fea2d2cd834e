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
#define PRODUCER_WARPS 8 /**< warps that only copy tiles */
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 1 /**< blocks per SM the register budget must allow */
#endif

#endif
