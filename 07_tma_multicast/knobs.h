/**
 * @file 07_tma_multicast/knobs.h
 * @brief Chapter 07's knobs, for kernel.cu and variants.cu: their defaults
 *        and meanings live in the Makefile (make help), which passes them
 *        (make chapter-07 CLUSTER_M=1 CLUSTER_N=2); each kernel file fixes
 *        its own tile sizes.
 */
#ifndef CH07_KNOBS_H
#define CH07_KNOBS_H

#if !defined(STAGES) || !defined(CLUSTER_M) || !defined(PRODUCER_REGS) || !defined(CONSUMER_REGS) || !defined(CLUSTER_N)
#error "STAGES CLUSTER_M PRODUCER_REGS CONSUMER_REGS CLUSTER_N: set by 07_tma_multicast/Makefile (make help lists them); build with make"
#endif

static_assert(STAGES >= 2 && STAGES <= 8, "STAGES must be 2..8 (a stage of the lesson kernel is 24 KB)");
static_assert(CLUSTER_M * CLUSTER_N <= 8 && 32 % CLUSTER_M == 0 && 32 % CLUSTER_N == 0,
              "a cluster of at most 8 that splits the tiles evenly");

#endif
