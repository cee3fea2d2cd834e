/**
 * @file trace.h
 * @brief In-kernel tracing, host side: what the trace points record
 *        (trace.cuh), and `--trace FILE`, which arms them for one launch of
 *        each kernel a chapter runs and writes Chrome Trace Event JSON
 *        (open it in https://ui.perfetto.dev or chrome://tracing) and CSV.
 */
#ifndef TUTORIAL_TRACE_H
#define TUTORIAL_TRACE_H

#include <stdio.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief One traced step of one warp: 32 bytes. */
typedef struct {
    unsigned long long t0; /**< `%globaltimer` at its start (ns) */
    unsigned long long t1; /**< at its end */
    unsigned block;        /**< linear block index */
    int tile;              /**< the K tile, output tile or task it worked on (-1: none) */
    unsigned short sm;     /**< the SM it ran on */
    unsigned short warp;   /**< warp index in the block */
    unsigned short what;   /**< the step (trace_kind) */
    unsigned short pad;    /**< zero */
} trace_record;

/** @brief Records a warp claims at a time (a record with t1 == 0 was not written). */
#define TRACE_CHUNK 64

/** @brief Where the trace points write; all zero when tracing is not armed. */
typedef struct {
    trace_record *buf;  /**< records (device memory) */
    unsigned *count;    /**< records claimed, in chunks (device memory); beyond capacity: dropped */
    unsigned capacity;  /**< records @p buf holds */
    unsigned sms;       /**< trace blocks on SMs 0 .. sms-1 only */
} trace_target;

/** @brief The steps the lesson kernels trace. */
typedef enum {
    TRACE_LOAD,         /**< load a tile into shared memory and wait for it (synchronous, 01) */
    TRACE_SYNC,         /**< wait at a block-wide barrier (__syncthreads) */
    TRACE_ISSUE,        /**< issue asynchronous copies (cp.async, TMA) */
    TRACE_WAIT_FULL,    /**< wait for a stage to be full (consumer) */
    TRACE_COMPUTE,      /**< compute one K tile */
    TRACE_WAIT_EMPTY,   /**< wait for a stage to be free (producer) */
    TRACE_STORE,        /**< write the block's C tile */
    TRACE_FETCH,        /**< take the next tile or task from the queue */
    TRACE_TASK,         /**< run one task */
    TRACE_WORK,         /**< one phase's work between grid-wide barriers */
    TRACE_GRID_SYNC,    /**< wait at grid.sync() */
    TRACE_SHARE,        /**< store into the cluster's shared memory (DSMEM) and arrive */
    TRACE_CLUSTER_SYNC, /**< wait at a cluster-wide barrier */
    TRACE_KINDS
} trace_kind;

/** @brief A file's setter of its trace target (trace.cuh registers one per traced .cu file). */
typedef cudaError_t (*trace_setter)(const trace_target *t);

/** @brief Called by trace.cuh before main(); returns 1. */
int trace_register(trace_setter set);

/** @brief 1 when this build has trace points (TRACE=1), else 0. */
int trace_available(void);

/** @brief 1 while trace files are open (after trace_open()). */
int trace_active(void);

/** @brief The name of step @p what ("compute", "wait full", ...). */
const char *trace_kind_name(unsigned what);

/** @brief Run once, traced (common/runner.h's run_fn). */
typedef cudaError_t (*trace_run_fn)(void *arg, cudaStream_t stream);

/**
 * @brief Open @p path (JSON; the CSV goes beside it, .json -> .csv) for
 *        the traces of this run; @p meta is written into both (GPU,
 *        driver, CUDA, commit, date). Call only in a build with trace
 *        points: chapter_parse() refuses --trace in one without (exit 2,
 *        saying how to get one). Progress lines go to @p out.
 */
void trace_open(const char *path, const char *chapter, const char *meta, FILE *out);

/**
 * @brief Run @p fn once with tracing armed, and add what it recorded to
 *        the trace files under @p name (a launch that records nothing, such
 *        as cuBLAS, adds nothing). @p untraced_ms (the median of the untraced
 *        runs, or a negative number) is reported beside the traced run's
 *        time, which is the tracing's overhead. Returns the launch's error.
 */
cudaError_t trace_run(const char *name, trace_run_fn fn, void *arg, double untraced_ms);

/** @brief Finish and close the trace files (a no-op when none is open). */
void trace_close(void);

#ifdef __cplusplus
}
#endif

#endif
