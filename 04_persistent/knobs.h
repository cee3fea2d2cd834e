/**
 * @file 04_persistent/knobs.h
 * @brief Chapter 04's tuning knobs and their defaults, for kernel.cu and
 *        variants.cu. The Makefile passes them (make chapter-04 GROUP=1);
 *        chapter 06, which compiles kernel.cu as a baseline, gets these
 *        defaults.
 */
#ifndef CH04_KNOBS_H
#define CH04_KNOBS_H

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
#ifndef GROUP
#define GROUP 8 /**< rows of tiles visited together (1: row-major order) */
#endif

#endif
