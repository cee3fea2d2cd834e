/**
 * @file 06_clusters_dsmem/knobs.h
 * @brief Chapter 06's tuning knobs and their defaults, for kernel.cu and
 *        variants.cu. The Makefile passes them (make chapter-06 CLUSTER=4).
 */
#ifndef CH06_KNOBS_H
#define CH06_KNOBS_H

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
#define PRODUCER_WARPS 4 /**< warps that copy tiles (CLUSTER=8 needs 4) */
#endif
#ifndef CLUSTER
#define CLUSTER 2 /**< blocks per cluster, side by side along N; they share A tiles */
#endif

#endif
