/**
 * @file trace.cuh
 * @brief Trace points for the lesson kernels: `%globaltimer` at the start
 *        and end of each role's steps (a wait, a copy issued, a tile
 *        computed, C stored), written by lane 0 of each warp of the blocks
 *        that run on the first SMs. Read by common/trace.c, which writes
 *        Chrome Trace Event JSON and CSV (`./run --trace FILE`).
 *
 * Only a TRACE=1 build has them (`make chapter-NN TRACE=1` defines
 * TUTORIAL_TRACE for the chapter's own .cu files). In the default build
 * TRACE_BEGIN and TRACE_END expand to nothing, so the lesson kernels and
 * their timings are exactly those without tracing.
 *
 * A kernel with trace points starts with TRACE_SETUP(); a step is traced as
 *     TRACE_BEGIN(t0);
 *     ... the step ...
 *     TRACE_END(t0, TRACE_COMPUTE, tile);
 * TRACE_BEGIN reads the timer in every thread (one instruction); TRACE_END
 * writes one 32-byte record per warp when tracing is armed for this launch
 * and the block runs on a traced SM. Lane 0 of a warp claims room for
 * TRACE_CHUNK records at a time with one atomic and then writes its records
 * into it without waiting for anything: an atomic per record made every
 * traced step wait a round trip to L2. The "memory" clobbers keep the
 * compiler from moving loads and stores across the timer reads; arithmetic
 * may still move a little, so a span's edges are good to a few
 * instructions.
 */
#ifndef TUTORIAL_TRACE_CUH
#define TUTORIAL_TRACE_CUH

#include "trace.h" /* trace_record, trace_target, the event kinds */

#ifdef TUTORIAL_TRACE
#include <cuda_runtime.h>

/* This file's copy of the target (each .cu file is its own module), in
 * constant memory: every thread reads the same value, so an unarmed trace
 * point costs a uniform branch. The host sets it through the setter
 * registered below. Zero: not armed. */
static __constant__ trace_target tutorial_trace_target;

/** @brief The GPU's global nanosecond timer (`%globaltimer`). */
__device__ __forceinline__ unsigned long long trace_clock()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

/** @brief The SM this thread runs on (`%smid`). */
__device__ __forceinline__ unsigned trace_smid()
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/**
 * @brief Record the span [@p t0, now) of step @p what (tile or index @p tile)
 *        for this warp, in the warp's chunk [@p next, @p end) of the buffer
 *        (a new chunk when it is used up).
 */
__device__ __forceinline__ void trace_span(unsigned long long t0, unsigned what, int tile, unsigned &next,
                                           unsigned &end)
{
    const trace_target tt = tutorial_trace_target;
    const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    if (tt.buf == nullptr || tid % 32 != 0) return;
    const unsigned sm = trace_smid();
    if (sm >= tt.sms) return;
    const unsigned long long t1 = trace_clock();
    if (next == end) {
        next = atomicAdd(tt.count, (unsigned)TRACE_CHUNK);
        end = next + TRACE_CHUNK;
    }
    if (next >= tt.capacity) return; /* full: the count says how much was asked for */
    const unsigned i = next++;
    trace_record r;
    r.t0 = t0;
    r.t1 = t1;
    r.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    r.tile = tile;
    r.sm = (unsigned short)sm;
    r.warp = (unsigned short)(tid / 32);
    r.what = (unsigned short)what;
    r.pad = 0;
    tt.buf[i] = r;
}

/* Register this file's setter with the host side before main() runs. */
static cudaError_t tutorial_trace_set(const trace_target *t)
{
    return cudaMemcpyToSymbol(tutorial_trace_target, t, sizeof *t);
}
[[maybe_unused]] static const int tutorial_trace_registered = trace_register(tutorial_trace_set);

/** @brief At the start of a kernel with trace points: the warp's place in the buffer. */
#define TRACE_SETUP() unsigned trace_next = 0, trace_end = 0
/** @brief Start a traced step: the time, in a new variable @p t0. */
#define TRACE_BEGIN(t0) const unsigned long long t0 = trace_clock()
/** @brief End the step begun at @p t0: record step @p what on @p tile (lane 0 of each warp). */
#define TRACE_END(t0, what, tile) trace_span((t0), (what), (tile), trace_next, trace_end)
#else
/** @brief At the start of a kernel with trace points (nothing: this is not a TRACE=1 build). */
#define TRACE_SETUP()
/** @brief Start a traced step (nothing: this is not a TRACE=1 build). */
#define TRACE_BEGIN(t0)
/** @brief End a traced step (nothing: this is not a TRACE=1 build). */
#define TRACE_END(t0, what, tile)
#endif

#endif
