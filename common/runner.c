/**
 * @file runner.c
 * @brief Command line, device and timing around a chapter's work (see runner.h).
 */
#define _POSIX_C_SOURCE 200809L /**< for gmtime_r() */
#include "runner.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "dump.h"
#include "exit_codes.h"
#include "matrix.h"
#include "nvtx.h"
#include "trace.h"
#include "watchdog.h"

int chapter_parse(chapter_env *e, int argc, char **argv, const char *chapter, const char *title)
{
    char err[256];
    switch (options_parse(argc, argv, &e->o, err, sizeof err)) {
    case OPTIONS_HELP:
        printf("%s\n\n", title);
        options_print_help(stdout, argv[0], &e->o);
        return EXIT_VERIFIED;
    case OPTIONS_ERROR:
        fprintf(stderr, "%s: %s\n", chapter, err);
        return EXIT_USAGE;
    case OPTIONS_OK:
        break;
    }
    if (e->o.trace != NULL && !trace_available()) {
        fprintf(stderr,
                "%s: --trace: this build has no trace points. Build with them, then run again:\n"
                "  make chapter-%.2s TRACE=1      (or: make TRACE=1 in %s/)\n",
                chapter, chapter, chapter);
        return EXIT_USAGE;
    }
    return -1;
}

int chapter_finish(const chapter_env *e, int all_ok)
{
    trace_close();
    if (!e->o.verify) {
        fprintf(e->out, "\nUNVERIFIED (--no-verify): timings only\n");
        return EXIT_VERIFIED;
    }
    fprintf(e->out, "\n%s\n", all_ok ? "PASSED" : "FAILED: at least one result was wrong");
    return all_ok ? EXIT_VERIFIED : EXIT_VERIFY_FAILED;
}

/* The chapter's requirement and build target, from its Makefile (common.mk). */
#if !defined(TUTORIAL_MIN_CC) || !defined(TUTORIAL_MIN_CC_FOR) || !defined(TUTORIAL_ARCH)
#error "build runner.c through common/common.mk: it passes the chapter's MIN_CC, MIN_CC_FOR and ARCH"
#endif

void chapter_start(chapter_env *e, const char *chapter, const char *title)
{
    char label[64];
    const char *commit = getenv("TUTORIAL_COMMIT");
    time_t now = time(NULL);
    struct tm tm_utc;
    e->out = (e->o.csv || e->o.json) ? stderr : stdout;
    e->csv_header_done = 0;
    fprintf(e->out, "%s\n", title);
    /* "02_double_buffer" -> "chapter 02" */
    if (chapter[0] >= '0' && chapter[0] <= '9') snprintf(label, sizeof label, "chapter %.2s", chapter);
    else snprintf(label, sizeof label, "%s", chapter);
    device_require(label, TUTORIAL_MIN_CC, TUTORIAL_MIN_CC_FOR, TUTORIAL_ARCH, &e->dev);
    device_print(e->out, &e->dev);
    if (e->o.smem_limit > 0) {
        fprintf(e->out, "smem     : at most %ld B of shared memory per block (--smem-limit; this GPU allows %zu)\n",
                e->o.smem_limit, smem_limit());
        smem_set_limit((size_t)e->o.smem_limit);
    }

    gmtime_r(&now, &tm_utc);
    strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm_utc);
    memset(&e->ctx, 0, sizeof e->ctx);
    e->ctx.gpu = e->dev.name;
    e->ctx.driver = e->dev.driver;
    e->ctx.cuda = e->dev.runtime;
    e->ctx.commit = commit && *commit ? commit : "unknown";
    e->ctx.date = e->date;
    e->ctx.chapter = chapter;
    if (e->o.trace != NULL) {
        char meta[512];
        snprintf(meta, sizeof meta, "%s, driver %s, CUDA %s, commit %s, %s", e->ctx.gpu, e->ctx.driver,
                 e->ctx.cuda, e->ctx.commit, e->ctx.date);
        trace_open(e->o.trace, chapter, meta, e->out);
    }
}

void time_runs(const char *name, run_fn fn, void *arg, int warmup, int reps, time_stats *t)
{
    int i;
    cudaError_t err = cudaSuccess;
    cudaEvent_t *ev = xmalloc((size_t)(reps + 1) * sizeof *ev);
    float *ms = xmalloc((size_t)reps * sizeof *ms);
    for (i = 0; i <= reps; ++i) CUDA_CHECK(cudaEventCreate(&ev[i]));
    for (i = 0; i < warmup && err == cudaSuccess; ++i) err = fn(arg, 0);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaEventRecord(ev[0], 0);
    for (i = 0; i < reps && err == cudaSuccess; ++i) {
        err = fn(arg, 0);
        if (err == cudaSuccess) err = cudaEventRecord(ev[i + 1], 0);
    }
    if (err == cudaSuccess) err = cudaEventSynchronize(ev[reps]);
    if (err != cudaSuccess) {
        fprintf(stderr, "'%s': failed while timing: %s (%s)\n", name, cudaGetErrorString(err),
                cudaGetErrorName(err));
        exit(EXIT_CUDA_ERROR);
    }
    for (i = 0; i < reps; ++i) CUDA_CHECK(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]));
    if (stats_summarize(ms, reps, t) != 0) {
        fprintf(stderr, "'%s': timings are not valid numbers\n", name);
        exit(EXIT_CUDA_ERROR);
    }
    for (i = 0; i <= reps; ++i) CUDA_CHECK(cudaEventDestroy(ev[i]));
    free(ev);
    free(ms);
}

void chapter_emit(chapter_env *e, const report_row *rows, int n)
{
    if (e->o.csv) {
        report_csv(stdout, &e->ctx, rows, n, !e->csv_header_done);
        e->csv_header_done = 1;
    }
    if (e->o.json) report_json(stdout, &e->ctx, rows, n);
}

void run_checked(chapter_env *e, const char *name, const char *knobs, run_fn fn, void *arg,
                 void (*poison)(void *state), check_fn check, void *state, report_row *row)
{
    run_checked_outputs(e, name, knobs, fn, arg, poison, check, state, NULL, 0, row);
}

/* The row of --check-dump: load another run's outputs and check them; no
 * launch, no timing. A row without outputs to load cannot be checked so. */
static void check_dumped(chapter_env *e, const char *name, const char *knobs, void (*poison)(void *state),
                         check_fn check, void *state, const run_output *outs, int nouts, report_row *row)
{
    char why[4400];
    int i, ok = nouts > 0;
    memset(row, 0, sizeof *row);
    row->kernel = name;
    row->knobs = knobs;
    row->tflops = row->pct_cublas = row->speedup_prev = -1.0;
    if (check == NULL) {
        row->verified = "n/a";
        return;
    }
    poison(state);
    for (i = 0; i < nouts && ok; ++i) ok = dump_load(e->o.check_dump, name, i, outs[i].dev, outs[i].bytes, why, sizeof why);
    if (nouts == 0) snprintf(why, sizeof why, "this row names no outputs to load (a bug in the chapter)");
    if (ok) ok = check(state, name, "dumped run");
    else fprintf(e->out, "  %-22s %-12s FAILED  %s\n", name, "dumped run", why);
    row->verified = ok ? "yes" : "NO";
}

void run_checked_outputs(chapter_env *e, const char *name, const char *knobs, run_fn fn, void *arg,
                         void (*poison)(void *state), check_fn check, void *state, const run_output *outs,
                         int nouts, report_row *row)
{
    char phase[96];
    int ok = 1, i;
    const int verify = e->o.verify && check != NULL;
    cudaError_t err;
    if (e->o.check_dump != NULL) {
        check_dumped(e, name, knobs, poison, check, state, outs, nouts, row);
        return;
    }
    snprintf(phase, sizeof phase, "%s: verify and time", name);
    NVTX_PUSH(phase);
    watchdog_arm(e->o.timeout_s, phase);
    if (verify) {
        poison(state);
        err = fn(arg, 0);
        if (err != cudaSuccess) {
            fprintf(stderr, "'%s': launch failed: %s (%s)\n", name, cudaGetErrorString(err),
                    cudaGetErrorName(err));
            exit(EXIT_CUDA_ERROR);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        for (i = 0; i < nouts && e->o.dump != NULL; ++i)
            if (!dump_write(e->o.dump, name, i, outs[i].dev, outs[i].bytes)) exit(EXIT_USAGE);
        ok = check(state, name, "first run");
        poison(state); /* the check after timing must see what the timed runs wrote */
    }
    time_runs(name, fn, arg, e->o.warmup, e->o.reps, &row->t);
    if (verify) ok = check(state, name, "after timing") && ok;
    if (trace_active()) { /* --trace: one more run, traced, and checked as well */
        if (verify) poison(state);
        err = trace_run(name, fn, arg, row->t.median);
        if (err != cudaSuccess) {
            fprintf(stderr, "'%s': traced run failed: %s (%s)\n", name, cudaGetErrorString(err),
                    cudaGetErrorName(err));
            exit(EXIT_CUDA_ERROR);
        }
        if (verify) ok = check(state, name, "traced run") && ok;
    }
    watchdog_disarm();
    NVTX_POP();
    row->kernel = name;
    row->knobs = knobs;
    row->tflops = -1.0;
    row->pct_cublas = -1.0;
    row->speedup_prev = -1.0;
    row->verified = check == NULL ? "n/a" : !e->o.verify ? "skipped" : ok ? "yes" : "NO";
}
