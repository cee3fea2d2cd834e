/**
 * @file 06_clusters_dsmem/demos/clusters.cu
 * @brief Chapter 06's cluster demonstrations, GPU side: the two ways to
 *        launch a cluster, a reduction through DSMEM atomics against one
 *        through global atomics, and block-to-block exchange (bandwidth,
 *        and latency by ping-pong) through DSMEM against global memory.
 *
 * Every kernel here needs sm_90; built for an older GPU the bodies are
 * empty and the host code refuses to run (see main.c).
 */
#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_runtime.h>

#include "../cluster.cuh"
#include "cluster_demo.h"

namespace cg = cooperative_groups;

#define STATIC_CLUSTER 4 /**< the compile-time cluster size of cluster_ids_static */

/* ------------------------------------------------------------ cluster launch */

/**
 * @brief What every block of a cluster knows about it: its rank, the
 *        cluster's size, and (through DSMEM) the block index its next peer
 *        stored in its own shared memory.
 */
__device__ void report_cluster_ids(int *out)
{
    __shared__ int mine;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) mine = blockIdx.x;
    /* Every block has started and written `mine` before anyone reads a peer's. */
    cluster.sync();
    if (threadIdx.x == 0) {
        const unsigned r = cluster.block_rank(), n = cluster.num_blocks();
        const int *peer = cluster.map_shared_rank(&mine, (r + 1) % n);
        out[3 * blockIdx.x + 0] = (int)r;
        out[3 * blockIdx.x + 1] = (int)n;
        out[3 * blockIdx.x + 2] = *peer;
    }
    /* ... and no block exits while its peer may still read `mine`. */
    cluster.sync();
}

// [cluster_dims]
/** @brief Cluster size fixed at compile time: an ordinary <<<>>> launch makes clusters of 4. */
__global__ void __cluster_dims__(STATIC_CLUSTER, 1, 1) cluster_ids_static(int *out)
{
    report_cluster_ids(out);
}
// [cluster_dims]

/** @brief The same kernel without __cluster_dims__: the launch chooses the cluster size. */
__global__ void cluster_ids_runtime(int *out) { report_cluster_ids(out); }

int cluster_static_size(void) { return STATIC_CLUSTER; }

cudaError_t launch_cluster_ids_static(int *out, int blocks, cudaStream_t stream)
{
    cluster_ids_static<<<blocks, 32, 0, stream>>>(out);
    return cudaGetLastError();
}

/** @brief cudaLaunchKernelEx() configuration: @p blocks x @p threads in clusters of @p cluster. */
static void cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int blocks, int threads,
                           int cluster, cudaStream_t stream)
{
    cluster_launch_config(cfg, attr, dim3(blocks), dim3(threads), 0, stream, dim3(cluster, 1, 1));
}

// [launch_ex]
cudaError_t launch_cluster_ids_runtime(int *out, int blocks, int cluster, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cluster_config(&cfg, &attr, blocks, 32, cluster, stream);
    const cudaError_t err = cudaLaunchKernelEx(&cfg, cluster_ids_runtime, out);
    return err != cudaSuccess ? err : cudaGetLastError();
}
// [launch_ex]

/* ------------------------------------------------------------- reduction */

#define REDUCE_THREADS 256 /**< threads per block of the reductions */

/** @brief This warp's sum of its grid-stride share of @p x (complete in lane 0). */
__device__ __forceinline__ long long warp_share(const int *__restrict__ x, long n)
{
    long long v = 0;
    const long stride = (long)gridDim.x * blockDim.x;
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) v += x[i];
#pragma unroll
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}

/** @brief Every warp adds its partial sum to @p sum in global memory: one atomic per warp. */
// [reduce_global]
__global__ void __launch_bounds__(REDUCE_THREADS) reduce_global(const int *__restrict__ x, long n,
                                                                 unsigned long long *sum)
{
    const long long v = warp_share(x, n);
    if (threadIdx.x % 32 == 0) atomicAdd(sum, (unsigned long long)v);
}
// [reduce_global]

/**
 * @brief Every warp adds its partial sum into the shared memory of block 0
 *        of its cluster (a DSMEM atomic); block 0 then adds the cluster's
 *        total to @p sum: one global atomic per cluster.
 */
// [reduce_dsmem]
__global__ void __launch_bounds__(REDUCE_THREADS) reduce_dsmem(const int *__restrict__ x, long n,
                                                                unsigned long long *sum)
{
    __shared__ unsigned long long cluster_sum; /* used in block 0 of each cluster only */
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) cluster_sum = 0;
    cluster.sync(); /* block 0's total is zero before any peer adds to it */
    const long long v = warp_share(x, n);
    if (threadIdx.x % 32 == 0) atomicAdd(cluster.map_shared_rank(&cluster_sum, 0), (unsigned long long)v);
    cluster.sync(); /* every peer has added (and block 0 stays until they have) */
    if (cluster.block_rank() == 0 && threadIdx.x == 0) atomicAdd(sum, cluster_sum);
}
// [reduce_dsmem]

cudaError_t launch_reduce_global(const int *x, long n, unsigned long long *sum, int blocks,
                                 cudaStream_t stream)
{
    cudaError_t err = cudaMemsetAsync(sum, 0, sizeof *sum, stream);
    if (err != cudaSuccess) return err;
    reduce_global<<<blocks, REDUCE_THREADS, 0, stream>>>(x, n, sum);
    return cudaGetLastError();
}

cudaError_t launch_reduce_dsmem(const int *x, long n, unsigned long long *sum, int blocks, int cluster,
                                cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err = cudaMemsetAsync(sum, 0, sizeof *sum, stream);
    if (err != cudaSuccess) return err;
    cluster_config(&cfg, &attr, blocks, REDUCE_THREADS, cluster, stream);
    err = cudaLaunchKernelEx(&cfg, reduce_dsmem, x, n, sum);
    return err != cudaSuccess ? err : cudaGetLastError();
}

cudaError_t reduce_cluster_occupancy(int cluster, int *clusters)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err;
    if (cluster > 8 &&
        (err = cudaFuncSetAttribute(reduce_dsmem, cudaFuncAttributeNonPortableClusterSizeAllowed, 1)) !=
            cudaSuccess)
        return err;
    cluster_config(&cfg, &attr, cluster * 64, REDUCE_THREADS, cluster, 0);
    return cudaOccupancyMaxActiveClusters(clusters, reduce_dsmem, &cfg);
}

/* -------------------------------------------------------------- exchange */

#define XCHG_THREADS 256 /**< threads per block of the exchange kernels */

/** @brief Element @p j of the message block @p b sends in round @p it (exact in float). */
__device__ __forceinline__ float4 message(int b, int it, int j)
{
    const float v = (float)((b * 131 + it * 7 + j) & 0xffff);
    return make_float4(v, v + 1.0f, v + 2.0f, v + 3.0f);
}

/** @brief 1 when @p got is not element @p j of block @p b's round-@p it message. */
__device__ __forceinline__ int wrong(float4 got, int b, int it, int j)
{
    const float4 w = message(b, it, j);
    return got.x != w.x || got.y != w.y || got.z != w.z || got.w != w.w;
}

/**
 * @brief Pairs of blocks (clusters of 2) swap a message of XCHG_FLOAT4S x 16
 *        bytes per round for @p iters rounds, writing straight into the
 *        partner's shared memory; one cluster barrier per round publishes it.
 *        Every received element is checked: errors[b] is the number of
 *        block b's threads that saw a wrong one, rounds[b] the rounds it ran.
 */
// [exchange_dsmem]
__global__ void __launch_bounds__(XCHG_THREADS) exchange_dsmem(int iters, int *errors, int *rounds, int divergent)
{
    __shared__ float4 inbox[2][XCHG_FLOAT4S]; /* two rounds in flight: write one, read the other */
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned peer = cluster.block_rank() ^ 1;
    float4 *peer_inbox = cluster.map_shared_rank(&inbox[0][0], peer);
    const int from = (int)(blockIdx.x ^ 1);
    int bad = 0;
    cluster.sync(); /* both blocks are running before either writes into the other */
    for (int it = 0; it < iters; ++it) {
        const int b = it & 1;
        for (int j = threadIdx.x; j < XCHG_FLOAT4S; j += XCHG_THREADS)
            peer_inbox[b * XCHG_FLOAT4S + j] = message(blockIdx.x, it, j);
        /* Publishes this round's message. One barrier per round is enough
         * with two inboxes: this round writes the partner's inbox[b], which
         * the partner last read in round it-2, before it arrived at round
         * it-1's barrier, which this block has passed. */
        if (divergent && blockIdx.x == 0 && threadIdx.x < 32 && it == iters - 1) continue; /* never do this */
        cluster.sync();
        for (int j = threadIdx.x; j < XCHG_FLOAT4S; j += XCHG_THREADS) bad += wrong(inbox[b][j], from, it, j);
    }
    cluster.sync(); /* the partner's last reads of its inbox are done before this block leaves */
    bad = __syncthreads_count(bad); /* threads that saw a wrong element */
    if (threadIdx.x == 0) {
        errors[blockIdx.x] = bad;
        rounds[blockIdx.x] = iters;
    }
}
// [exchange_dsmem]

/**
 * @brief exchange_dsmem() with the cluster barrier split in its two halves:
 *        `barrier_arrive()` as soon as this round's message is written (a
 *        release: it publishes the writes), `barrier_wait()` only when the
 *        partner's message is needed (an acquire). Between them goes work
 *        that depends on neither: here, computing the next round's message
 *        into registers, which exchange_dsmem() does before its barrier
 *        (nvcc 13.0 moves that arithmetic next to the stores in the PTX;
 *        the page says what that leaves between the halves).
 *        The received message is read after the wait, as there: until the
 *        barrier completes, the partner may not yet have written this
 *        round's message, and only the wait (an acquire, pairing with the
 *        partner's release at its arrive) makes its writes visible here.
 */
// [exchange_split]
__global__ void __launch_bounds__(XCHG_THREADS) exchange_dsmem_split(int iters, int *errors, int *rounds)
{
    static_assert(XCHG_FLOAT4S % XCHG_THREADS == 0, "each thread sends the same number of float4");
    constexpr int PER_THREAD = XCHG_FLOAT4S / XCHG_THREADS;
    __shared__ float4 inbox[2][XCHG_FLOAT4S];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned peer = cluster.block_rank() ^ 1;
    float4 *peer_inbox = cluster.map_shared_rank(&inbox[0][0], peer);
    const int from = (int)(blockIdx.x ^ 1);
    float4 next[PER_THREAD];
    int bad = 0;
    for (int l = 0; l < PER_THREAD; ++l) next[l] = message(blockIdx.x, 0, threadIdx.x + l * XCHG_THREADS);
    cluster.sync();
    for (int it = 0; it < iters; ++it) {
        const int b = it & 1;
        for (int l = 0; l < PER_THREAD; ++l) peer_inbox[b * XCHG_FLOAT4S + threadIdx.x + l * XCHG_THREADS] = next[l];
        auto token = cluster.barrier_arrive(); /* this round's message is written */
        for (int l = 0; l < PER_THREAD; ++l) next[l] = message(blockIdx.x, it + 1, threadIdx.x + l * XCHG_THREADS);
        cluster.barrier_wait(std::move(token)); /* the partner's is */
        for (int j = threadIdx.x; j < XCHG_FLOAT4S; j += XCHG_THREADS) bad += wrong(inbox[b][j], from, it, j);
    }
    cluster.sync();
    bad = __syncthreads_count(bad);
    if (threadIdx.x == 0) {
        errors[blockIdx.x] = bad;
        rounds[blockIdx.x] = iters;
    }
}
// [exchange_split]

/**
 * @brief The same exchange through global memory: each block writes its
 *        message to its own slot (two per block), publishes it with a
 *        release store of the round number to its flag, and waits (acquire)
 *        for the partner's flag before reading the partner's slot from L2.
 *        Launched in clusters of 2 as well, only so that partners are
 *        guaranteed to run at the same time (the spin would hang otherwise).
 */
// [exchange_global]
__global__ void __launch_bounds__(XCHG_THREADS) exchange_global(int iters, int *errors, int *rounds,
                                                                 float4 *mail, int *flags)
{
    const int from = (int)(blockIdx.x ^ 1);
    int bad = 0;
    for (int it = 0; it < iters; ++it) {
        const int b = it & 1;
        float4 *out = mail + ((size_t)blockIdx.x * 2 + b) * XCHG_FLOAT4S;
        const float4 *in = mail + ((size_t)from * 2 + b) * XCHG_FLOAT4S;
        for (int j = threadIdx.x; j < XCHG_FLOAT4S; j += XCHG_THREADS) out[j] = message(blockIdx.x, it, j);
        __syncthreads(); /* the whole message is written before thread 0 publishes it */
        if (threadIdx.x == 0) {
            cuda::atomic_ref<int, cuda::thread_scope_device> mine(flags[blockIdx.x]), theirs(flags[from]);
            mine.store(it + 1, cuda::memory_order_release);
            while (theirs.load(cuda::memory_order_acquire) < it + 1) {
            }
        }
        __syncthreads(); /* the partner's message is visible to the whole block */
        /* __ldcg: from L2; L1 is not coherent with the partner's SM. */
        for (int j = threadIdx.x; j < XCHG_FLOAT4S; j += XCHG_THREADS) bad += wrong(__ldcg(in + j), from, it, j);
    }
    bad = __syncthreads_count(bad);
    if (threadIdx.x == 0) {
        errors[blockIdx.x] = bad;
        rounds[blockIdx.x] = iters;
    }
}
// [exchange_global]

cudaError_t launch_exchange(const exchange_args *a, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err;
    cluster_config(&cfg, &attr, a->blocks, XCHG_THREADS, 2, stream);
    if (a->dsmem == 1) {
        err = cudaLaunchKernelEx(&cfg, exchange_dsmem, a->iters, a->errors, a->rounds, a->divergent);
    } else if (a->dsmem == 2) {
        err = cudaLaunchKernelEx(&cfg, exchange_dsmem_split, a->iters, a->errors, a->rounds);
    } else {
        if ((err = cudaMemsetAsync(a->flags, 0, (size_t)a->blocks * sizeof(int), stream)) != cudaSuccess)
            return err;
        err = cudaLaunchKernelEx(&cfg, exchange_global, a->iters, a->errors, a->rounds,
                                 reinterpret_cast<float4 *>(a->mail), a->flags);
    }
    return err != cudaSuccess ? err : cudaGetLastError();
}

/* ------------------------------------------------------------- ping-pong */


/**
 * @brief One cluster of 2 blocks; thread 0 of each passes a counter back and
 *        forth @p iters times through a flag in the other's shared memory.
 *        Each writes the last value it saw to @p seen[rank].
 */
// [pingpong_dsmem]
__global__ void pingpong_dsmem(int iters, int *seen)
{
    __shared__ int box;
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    if (threadIdx.x == 0) box = 0;
    cluster.sync();
    int *peer_box = cluster.map_shared_rank(&box, rank ^ 1);
    if (threadIdx.x == 0) {
        /* Relaxed atomics: the counter publishes no other data, so no fence
         * is needed and the time is the flag's alone. */
        for (int i = 1; i <= iters; ++i) {
            if (rank == 0) atomicExch(peer_box, i); /* ping: into the peer's shared memory */
            while (atomicOr(&box, 0) != i) {        /* spin on our own */
            }
            if (rank == 1) atomicExch(peer_box, i); /* pong */
        }
        seen[rank] = atomicOr(&box, 0);
    }
    cluster.sync();
}
// [pingpong_dsmem]

/** @brief The same through two flags in global memory (relaxed atomics, device scope). */
// [pingpong_global]
__global__ void pingpong_global(int iters, int *seen, int *flags)
{
    if (threadIdx.x != 0) return;
    const int rank = blockIdx.x;
    cuda::atomic_ref<int, cuda::thread_scope_device> mine(flags[rank]), theirs(flags[rank ^ 1]);
    for (int i = 1; i <= iters; ++i) {
        if (rank == 0) theirs.exchange(i, cuda::memory_order_relaxed);
        while (mine.fetch_or(0, cuda::memory_order_relaxed) != i) {
        }
        if (rank == 1) theirs.exchange(i, cuda::memory_order_relaxed);
    }
    seen[rank] = mine.fetch_or(0, cuda::memory_order_relaxed);
}
// [pingpong_global]

cudaError_t launch_pingpong(const pingpong_args *a, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    cudaError_t err;
    cluster_config(&cfg, &attr, 2, 32, 2, stream);
    if (a->dsmem) {
        err = cudaLaunchKernelEx(&cfg, pingpong_dsmem, a->iters, a->seen);
    } else {
        if ((err = cudaMemsetAsync(a->flags, 0, 2 * sizeof(int), stream)) != cudaSuccess) return err;
        err = cudaLaunchKernelEx(&cfg, pingpong_global, a->iters, a->seen, a->flags);
    }
    return err != cudaSuccess ? err : cudaGetLastError();
}
