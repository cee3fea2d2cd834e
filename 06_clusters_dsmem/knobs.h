/**
 * @file 06_clusters_dsmem/knobs.h
 * @brief What chapter 06's knobs imply, for kernel.cu and variants.cu.
 *        The knobs' defaults and meanings live in the Makefile (make help),
 *        which passes them (make chapter-06 CLUSTER=4).
 */
#ifndef CH06_KNOBS_H
#define CH06_KNOBS_H

#if !defined(BM) || !defined(BN) || !defined(BK) || !defined(STAGES) || !defined(PRODUCER_WARPS) || !defined(CLUSTER)
#error "BM BN BK STAGES PRODUCER_WARPS CLUSTER: set by 06_clusters_dsmem/Makefile (make help lists them); build with make"
#endif

#endif
