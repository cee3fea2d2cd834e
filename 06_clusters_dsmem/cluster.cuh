/**
 * @file 06_clusters_dsmem/cluster.cuh
 * @brief Small, documented inline-PTX helpers for thread block clusters:
 *        mbarriers that blocks of a cluster arrive on across the cluster,
 *        and the bulk copy that hands a block's part of a tile to a peer.
 *        Used by chapter 06 (cluster-wide full/empty barriers) and chapter
 *        07 (whose TMA copies, in 07_tma_multicast/tma.cuh, complete on them).
 *
 * Why not cuda::barrier: the rings in chapters 06 and 07 need a thread of
 * one block to arrive on a barrier in another block's shared memory (PTX
 * `mbarrier.arrive.release.cluster.shared::cluster`), and TMA completes
 * its copies on a raw mbarrier (`complete_tx`). A handful of one-line
 * wrappers around those instructions is easier to read than the general
 * `<cuda/ptx>` templates, and each names the PTX it emits.
 *
 * Every helper needs sm_90 (Hopper): chapters 06 and 07 refuse to build
 * for an older ARCH (MIN_CC in their Makefiles) and to run on an older GPU.
 *
 * Phases and parity: an mbarrier counts arrivals; when the expected number
 * has arrived (and, for TMA, the expected bytes have landed) its current
 * phase completes and the next begins. A waiter names the phase by its
 * parity: round n of a ring waits for parity n & 1 on the "full" barrier,
 * and the producer waits for parity (n & 1) ^ 1 on "empty", which a fresh
 * barrier reports as already complete, so the first round does not wait.
 */
#ifndef CH06_CLUSTER_CUH
#define CH06_CLUSTER_CUH
#include <stdint.h>
#include <cuda_runtime.h>

#include "../common/ptx.cuh" /* smem_addr() */

/* The tensor-core cluster's knob, checked once here, in the tensor-core
 * kernels (those that include blocked_tc.cuh first). */
#if defined(TC_CLUSTER) && defined(CH01_BLOCKED_TC_CUH)
static_assert(TC_CLUSTER == 1 || TC_CLUSTER == 2 || TC_CLUSTER == 4, "TC_CLUSTER must be 1, 2 or 4");
static_assert(TC_BN / TC_PANEL_COLS % TC_CLUSTER == 0, "the blocks of a cluster copy whole 64-column panels of B");
#endif

/**
 * @brief Fill a cudaLaunchKernelEx() configuration for clusters of
 *        @p cluster blocks (host code; @p attr must outlive the launch).
 *        The grid must be a multiple of the cluster in every dimension.
 */
static inline void cluster_launch_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, dim3 grid,
                                         dim3 block, size_t smem, cudaStream_t stream, dim3 cluster)
{
    *cfg = cudaLaunchConfig_t{};
    cfg->gridDim = grid;
    cfg->blockDim = block;
    cfg->dynamicSmemBytes = smem;
    cfg->stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = cluster.x;
    attr->val.clusterDim.y = cluster.y;
    attr->val.clusterDim.z = cluster.z;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/**
 * @brief How many clusters of @p cluster blocks of @p threads (and @p smem
 *        bytes of dynamic shared memory) of @p kernel can be resident at
 *        once on this GPU: the grid of a persistent cluster kernel (host code).
 */
static inline cudaError_t resident_clusters_of(const void *kernel, unsigned threads, size_t smem, unsigned cluster,
                                               int *clusters)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    int dev, sms;
    cudaError_t err;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return err;
    cluster_launch_config(&cfg, &attr, dim3(sms / cluster * cluster), dim3(threads), smem, 0, dim3(cluster, 1, 1));
    return cudaOccupancyMaxActiveClusters(clusters, kernel, &cfg);
}

/** @brief `mbarrier.init`: the barrier's phases complete after @p count arrivals. */
__device__ __forceinline__ void mbar_init(uint64_t *bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count)
                 : "memory");
}

/**
 * @brief `fence.mbarrier_init.release.cluster`: make this thread's
 *        mbarrier.init visible to the whole cluster (peers arriving, TMA
 *        completing on it). Follow it with a cluster barrier before any
 *        peer may use the barriers.
 */
__device__ __forceinline__ void fence_mbar_init()
{
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

/**
 * @brief Arrive on the barrier at @p bar's offset in the shared memory of
 *        block @p rank of the cluster (this block's own rank included).
 *
 * `mapa` turns the local address into that block's; the arrive has
 * release semantics at cluster scope, so this thread's earlier memory
 * accesses happen before whatever the waiter does after its acquire.
 * The chapters let every thread that wrote arrive itself: one elected
 * lane per warp after __syncwarp() is cheaper on paper, but compute-
 * sanitizer's racecheck does not follow that chain and reports races,
 * and on the H100 every-thread arrivals were no slower (chapter 06 page).
 */
__device__ __forceinline__ void mbar_arrive_cluster(uint64_t *bar, unsigned rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(bar)), "r"(rank));
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
}

/**
 * @brief A reader's release: arrive on the barrier at @p bar's offset in
 *        block @p rank, with release at CTA scope only (the PTX default).
 *
 * For consumers that only read the stage: their reads are done (their
 * values are in registers) and nothing they wrote must become visible to
 * the other block, so the cluster-scope release of mbar_arrive_cluster(),
 * which costs a memory barrier (MEMBAR) per arrival, buys nothing. This is
 * what CUTLASS's cluster pipelines do for their consumer releases.
 */
__device__ __forceinline__ void mbar_arrive_cluster_reader(uint64_t *bar, unsigned rank)
{
    uint32_t remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_addr(bar)), "r"(rank));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

/** @brief `mbarrier.expect_tx`: the current phase also waits for @p bytes of asynchronous copies. */
__device__ __forceinline__ void mbar_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
}

/**
 * @brief Arrive on this block's barrier @p bar once the calling thread's
 *        cp.async copies issued so far have landed
 *        (`cp.async.mbarrier.arrive.noinc`: the barrier's count includes it).
 */
__device__ __forceinline__ void mbar_arrive_on_copies(uint64_t *bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/** @brief Arrive on this block's own barrier @p bar (release at CTA scope), without a cluster address. */
__device__ __forceinline__ void mbar_arrive_local(uint64_t *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}

/**
 * @brief Copy @p bytes at @p p in this block's shared memory to the same
 *        offset in block @p rank's, and count them on that block's barrier
 *        at @p bar's offset (`cp.async.bulk.shared::cluster.shared::cta`):
 *        the copy engine moves them, no thread of either block stores them.
 */
__device__ __forceinline__ void bulk_copy_to_peer(const void *p, unsigned bytes, uint64_t *bar, unsigned rank)
{
    uint32_t dst, remote_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(dst) : "r"(smem_addr(p)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote_bar) : "r"(smem_addr(bar)), "r"(rank));
    asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(dst), "r"(smem_addr(p)), "r"(bytes), "r"(remote_bar)
                 : "memory");
}

/**
 * @brief How long (ns) one mbarrier.try_wait may suspend the waiting thread
 *        before it returns "not yet" and the loop polls again.
 *
 * Without a hint, try_wait returns after a short, implementation-chosen
 * time, and a waiter that spins (a producer waiting for a free stage)
 * issues a steady stream of polls that take issue slots from the warps
 * that compute. With a hint the thread sleeps in the barrier until the
 * phase completes or the time is up; the phase completing wakes it, so a
 * long hint costs no latency. CUTLASS's ClusterBarrier::wait passes the
 * same value.
 */
#define MBAR_SUSPEND_NS 10000000u

/** @brief One (suspending) poll of mbarrier.try_wait.parity, at cluster or (default) CTA scope. */
template <bool Cluster>
__device__ __forceinline__ uint32_t mbar_try_wait(uint64_t *bar, unsigned parity)
{
    uint32_t done;
    if (Cluster)
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2, %3;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity), "r"(MBAR_SUSPEND_NS)
                     : "memory");
    else
        asm volatile("{\n\t.reg .pred p;\n\t"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2, %3;\n\t"
                     "selp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done)
                     : "r"(smem_addr(bar)), "r"(parity), "r"(MBAR_SUSPEND_NS)
                     : "memory");
    return done;
}

/**
 * @brief Wait until the phase of parity @p parity of this block's barrier
 *        @p bar has completed (acquire at cluster scope: what the arriving
 *        threads of any block of the cluster wrote before arriving, and what
 *        TMA delivered, is visible after it).
 */
__device__ __forceinline__ void mbar_wait(uint64_t *bar, unsigned parity)
{
    while (!mbar_try_wait<true>(bar, parity)) {
    }
}

/**
 * @brief As mbar_wait(), with the default acquire at CTA scope. Enough
 *        where what the wait must make visible was delivered by TMA into
 *        this block's own shared memory (complete_tx makes it visible to
 *        the threads that observe the phase), or where the waiter only
 *        issues TMA copies afterwards; cheaper than a cluster-scope acquire.
 */
__device__ __forceinline__ void mbar_wait_cta(uint64_t *bar, unsigned parity)
{
    while (!mbar_try_wait<false>(bar, parity)) {
    }
}
#endif
