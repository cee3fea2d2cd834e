/**
 * @file 07_tma_multicast/knobs.h
 * @brief Chapter 07's tuning knobs, for kernel.cu and variants.cu. The
 *        Makefile passes them (make chapter-07 CLUSTER_M=1 CLUSTER_N=2);
 *        each kernel file fixes its own tile sizes.
 */
#ifndef CH07_KNOBS_H
#define CH07_KNOBS_H

#ifndef STAGES
#define STAGES 8 /**< tiles the ring holds (2: double buffering) */
#endif
#ifndef CLUSTER_M
#define CLUSTER_M 2 /**< multicast kernels: blocks per cluster along M (they share B tiles) */
#endif
#ifndef PRODUCER_REGS
#define PRODUCER_REGS 40 /**< lesson kernels: registers the producer warpgroup keeps (setmaxnreg.dec) */
#endif
#ifndef CONSUMER_REGS
#define CONSUMER_REGS 232 /**< lesson kernels: registers each consumer thread gets (setmaxnreg.inc) */
#endif
#ifndef CLUSTER_N
#define CLUSTER_N 1 /**< multicast kernels: blocks per cluster along N (they share A tiles) */
#endif

static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8 (a stage of the lesson kernel is 24 KB)");
static_assert(CLUSTER_M * CLUSTER_N <= 8 && 32 % CLUSTER_M == 0 && 32 % CLUSTER_N == 0,
              "a cluster of at most 8 that splits the tiles evenly");

#endif
