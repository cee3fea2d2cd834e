/**
 * @file runner.h
 * @brief What every chapter's main does around its own work: parse the
 *        command line, find the GPU, time a piece of GPU work with events.
 *
 * The GEMM chapters use it through gemm_driver.h; chapters whose
 * demonstrations are not a GEMM (04's task queue, 05) call it directly.
 */
#ifndef TUTORIAL_RUNNER_H
#define TUTORIAL_RUNNER_H

#include <stdio.h>
#include <cuda_runtime_api.h>

#include "device.h"
#include "options.h"
#include "report.h"
#include "stats.h"

/** @brief A chapter run's options, device and report context. */
typedef struct {
    options o;          /**< parsed options (fill with the defaults before chapter_parse()) */
    FILE *out;          /**< the human report: stdout, or stderr under --csv/--json */
    device_info dev;    /**< the GPU */
    report_context ctx; /**< gpu, driver, cuda, commit, date, chapter; m, n, k are the caller's */
    char date[32];      /**< storage of ctx.date */
    int csv_header_done; /**< set once a CSV header has been printed */
} chapter_env;

/**
 * @brief Parse the command line into e->o; nothing touches the GPU yet.
 *
 * e->o must hold the defaults first (options_defaults() and whatever the
 * chapter changes: its own options, mnk, names). Prints the help on --help and a
 * message on bad input.
 * @return -1 to go on, else the exit code to return (0 after --help, 2 on bad input)
 */
int chapter_parse(chapter_env *e, int argc, char **argv, const char *chapter, const char *title);

/**
 * @brief Print the title, find the GPU and check that the chapter can run
 *        on it (exit 3 saying what is missing: see device_require()), fill e->ctx.
 *
 * The chapter's requirement comes from its Makefile (MIN_CC, MIN_CC_FOR and
 * ARCH), which common/common.mk passes to this file's compilation.
 */
void chapter_start(chapter_env *e, const char *chapter, const char *title);

/** @brief One run of the work to time: enqueue it on @p stream, return the launch status. */
typedef cudaError_t (*run_fn)(void *arg, cudaStream_t stream);

/**
 * @brief Time @p reps back-to-back runs of @p fn on the default stream after
 *        @p warmup untimed ones: event i+1 minus event i is run i.
 *        A failing launch prints @p name and exits 4.
 */
void time_runs(const char *name, run_fn fn, void *arg, int warmup, int reps, time_stats *t);

/** @brief Compare a run's outputs with the reference; print a PASSED/FAILED line; 1 when correct. */
typedef int (*check_fn)(void *state, const char *name, const char *when);

/**
 * @brief One table row: run @p fn once on poisoned outputs and check them,
 *        time it (time_runs()), then check the outputs of the timed runs
 *        (poisoned again first, so stale results cannot pass).
 *
 * The whole phase runs under the watchdog (--timeout). With --no-verify, or
 * @p check NULL (nothing to check, e.g. empty kernels), only the timing runs.
 * @param e       the run (options, output)
 * @param name    the row's name, e.g. "persistent"
 * @param knobs   its settings, printed and recorded
 * @param fn, arg the work: fn(arg, stream) enqueues one run
 * @param poison  fills the outputs with NaN (may be NULL when @p check is)
 * @param check   compares the outputs with the reference (NULL: nothing to check)
 * @param state   handed to @p poison and @p check
 * @param row     receives name, knobs, timing and "yes"/"NO"/"skipped"/"n/a";
 *                tflops, pct_cublas and speedup_prev are set to -1
 */
void run_checked(chapter_env *e, const char *name, const char *knobs, run_fn fn, void *arg,
                 void (*poison)(void *state), check_fn check, void *state, report_row *row);

/** @brief A device buffer that a row's check reads (see run_checked_outputs()). */
typedef struct {
    void *dev;    /**< device pointer */
    size_t bytes; /**< its size */
} run_output;

/**
 * @brief run_checked() for a row whose check reads the device buffers
 *        @p outs: --dump DIR writes them after the first run, and
 *        --check-dump DIR loads them from another run's files in place of
 *        running (dump.h), then checks them as a first run.
 */
void run_checked_outputs(chapter_env *e, const char *name, const char *knobs, run_fn fn, void *arg,
                         void (*poison)(void *state), check_fn check, void *state, const run_output *outs,
                         int nouts, report_row *row);

/**
 * @brief The run's last line and exit code: "UNVERIFIED" with --no-verify
 *        (exit 0), else "PASSED" (0) or "FAILED: ..." (1) from @p all_ok.
 */
int chapter_finish(const chapter_env *e, int all_ok);
/**
 * @brief Print @p n rows as CSV (--csv) or JSON (--json) lines with context
 *        e->ctx; the CSV header goes out once per run.
 */
void chapter_emit(chapter_env *e, const report_row *rows, int n);

#endif
