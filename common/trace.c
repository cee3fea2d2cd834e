/**
 * @file trace.c
 * @brief `--trace FILE`: arm the trace points (trace.cuh) for one launch of
 *        each kernel, and write what they recorded as Chrome Trace Event
 *        JSON and as CSV.
 *
 * The JSON has one "process" per SM of each traced launch and one "thread"
 * per warp of each block that ran there, so Perfetto or chrome://tracing
 * shows a row per warp, grouped by SM, with every step a coloured span.
 * The CSV holds the same spans, one per line, for scripts (docs/figures.sh
 * draws the pages' timelines from it); lines starting with '#' give the
 * machine, the build and each launch's traced and untraced times.
 */
#include "trace.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exit_codes.h"

#define MAX_SETTERS 8             /**< traced .cu files a program may have */
#define TRACE_CAPACITY (1u << 20) /**< records: 32 MiB of device memory */
#define TRACE_SMS 2               /**< blocks on SMs 0 and 1 (a cluster of 2 fits) */

static trace_setter setters[MAX_SETTERS];
static int nsetters;

static struct {
    FILE *json, *csv, *out;
    int first_event; /* no event written to the JSON yet */
    int launch;      /* traced launches written so far */
    trace_record *dbuf, *hbuf;
    unsigned *dcount;
} tr;

int trace_register(trace_setter set)
{
    if (nsetters < MAX_SETTERS) setters[nsetters++] = set;
    return 1;
}

int trace_available(void) { return nsetters > 0; }

int trace_active(void) { return tr.json != NULL; }

const char *trace_kind_name(unsigned what)
{
    static const char *const names[TRACE_KINDS] = {
        "load", "sync", "issue", "wait full", "compute", "wait empty", "store",
        "fetch", "task", "work", "grid.sync", "share", "cluster sync",
    };
    return what < TRACE_KINDS ? names[what] : "?";
}

static void set_all(const trace_target *t)
{
    int i;
    for (i = 0; i < nsetters; ++i) CUDA_CHECK(setters[i](t));
}

void trace_open(const char *path, const char *chapter, const char *meta, FILE *out)
{
    char csv[1024];
    size_t n = strlen(path);
    if (n + 5 >= sizeof csv) {
        fprintf(stderr, "%s: --trace: file name too long\n", chapter);
        exit(EXIT_USAGE);
    }
    /* x.json -> x.csv; any other name gets .csv added */
    if (n > 5 && strcmp(path + n - 5, ".json") == 0)
        snprintf(csv, sizeof csv, "%.*s.csv", (int)(n - 5), path);
    else
        snprintf(csv, sizeof csv, "%s.csv", path);
    tr.json = fopen(path, "w");
    tr.csv = fopen(csv, "w");
    if (tr.json == NULL || tr.csv == NULL) {
        fprintf(stderr, "%s: --trace: cannot write %s or %s\n", chapter, path, csv);
        exit(EXIT_USAGE);
    }
    tr.out = out;
    tr.first_event = 1;
    fprintf(tr.json, "{\"otherData\": {\"chapter\": \"%s\", \"run\": \"%s\"},\n\"displayTimeUnit\": \"ns\",\n"
                     "\"traceEvents\": [",
            chapter, meta);
    fprintf(tr.csv, "# chapter %s; %s\n# blocks on SMs 0-%d; times in ns from the launch's first traced step\n",
            chapter, meta, TRACE_SMS - 1);
    fprintf(tr.csv, "kernel,sm,block,warp,role,event,tile,start_ns,end_ns\n");
    CUDA_CHECK(cudaMalloc((void **)&tr.dbuf, TRACE_CAPACITY * sizeof(trace_record)));
    CUDA_CHECK(cudaMalloc((void **)&tr.dcount, sizeof(unsigned)));
    tr.hbuf = malloc(TRACE_CAPACITY * sizeof(trace_record));
    if (tr.hbuf == NULL) {
        fprintf(stderr, "%s: --trace: out of host memory\n", chapter);
        exit(EXIT_CUDA_ERROR);
    }
    fprintf(out, "trace    : %s and %s (blocks on SMs 0-%d)\n", path, csv, TRACE_SMS - 1);
}

static int by_start(const void *a, const void *b)
{
    const trace_record *x = a, *y = b;
    if (x->sm != y->sm) return x->sm < y->sm ? -1 : 1;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    if (x->warp != y->warp) return x->warp < y->warp ? -1 : 1;
    return x->t0 < y->t0 ? -1 : x->t0 > y->t0;
}

/* A warp's role, from the steps it took: copies only, computes only, or both. */
static const char *role_of(const trace_record *r, size_t n)
{
    int copies = 0, computes = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        const unsigned w = r[i].what;
        copies |= w == TRACE_ISSUE || w == TRACE_WAIT_EMPTY || w == TRACE_SHARE || w == TRACE_LOAD;
        computes |= w == TRACE_COMPUTE || w == TRACE_WAIT_FULL;
    }
    return copies && !computes ? "producer" : computes && !copies ? "consumer" : "";
}

static void write_event(const char *fmt, ...);

cudaError_t trace_run(const char *name, trace_run_fn fn, void *arg, double untraced_ms)
{
    trace_target t = {tr.dbuf, tr.dcount, TRACE_CAPACITY, TRACE_SMS}, off = {NULL, NULL, 0, 0};
    cudaEvent_t e0, e1;
    unsigned count, claimed, kept, dropped;
    float ms;
    size_t i, j;
    unsigned long long tmin = ~0ull;
    cudaError_t err;
    if (tr.json == NULL) return cudaSuccess;
    CUDA_CHECK(cudaMemset(tr.dcount, 0, sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(tr.dbuf, 0, TRACE_CAPACITY * sizeof(trace_record))); /* unwritten: t1 == 0 */
    set_all(&t);
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    CUDA_CHECK(cudaEventRecord(e0, 0));
    err = fn(arg, 0);
    CUDA_CHECK(cudaEventRecord(e1, 0));
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    set_all(&off);
    if (err != cudaSuccess) return err;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    CUDA_CHECK(cudaMemcpy(&count, tr.dcount, sizeof count, cudaMemcpyDeviceToHost));
    if (count == 0) return cudaSuccess; /* no trace points in this launch (cuBLAS, a parent's kernel) */
    claimed = count < TRACE_CAPACITY ? count : TRACE_CAPACITY;
    CUDA_CHECK(cudaMemcpy(tr.hbuf, tr.dbuf, claimed * sizeof(trace_record), cudaMemcpyDeviceToHost));
    /* Keep the records written: the rest of each warp's last chunk is empty. */
    for (i = 0, kept = 0; i < claimed; ++i)
        if (tr.hbuf[i].t1 != 0) tr.hbuf[kept++] = tr.hbuf[i];
    qsort(tr.hbuf, kept, sizeof(trace_record), by_start);
    for (i = 0; i < kept; ++i)
        if (tr.hbuf[i].t0 < tmin) tmin = tr.hbuf[i].t0;

    /* Chunks asked for beyond the buffer: their steps were not stored. */
    dropped = count > TRACE_CAPACITY ? (count - TRACE_CAPACITY) / TRACE_CHUNK : 0;
    fprintf(tr.csv, "# launch %s: %u steps recorded, %u chunks dropped; traced launch %.4f ms, untraced median %.4f ms\n",
            name, kept, dropped, ms, untraced_ms);
    /* One process per SM, one thread per warp of each block, then the spans. */
    for (i = 0; i < kept; i = j) {
        const trace_record *r = &tr.hbuf[i];
        const int pid = tr.launch * 1000 + r->sm, tid = (int)(r->block * 64 + r->warp);
        const char *role;
        for (j = i; j < kept && tr.hbuf[j].sm == r->sm && tr.hbuf[j].block == r->block &&
                    tr.hbuf[j].warp == r->warp;
             ++j) {
        }
        role = role_of(r, j - i);
        if (i == 0 || tr.hbuf[i - 1].sm != r->sm)
            write_event("\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"args\": {\"name\": \"%s: SM %u\"}",
                        pid, name, r->sm);
        write_event("\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %d, "
                    "\"args\": {\"name\": \"block %u warp %u%s%s%s\"}",
                    pid, tid, r->block, r->warp, *role ? " (" : "", role, *role ? ")" : "");
        for (; i < j; ++i) {
            const trace_record *s = &tr.hbuf[i];
            write_event("\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%s\", \"pid\": %d, \"tid\": %d, "
                        "\"ts\": %.3f, \"dur\": %.3f, \"args\": {\"tile\": %d}",
                        trace_kind_name(s->what), *role ? role : "all", pid, tid, (s->t0 - tmin) / 1e3,
                        (s->t1 - s->t0) / 1e3, s->tile);
            fprintf(tr.csv, "%s,%u,%u,%u,%s,%s,%d,%llu,%llu\n", name, s->sm, s->block, s->warp, role,
                    trace_kind_name(s->what), s->tile, s->t0 - tmin, s->t1 - tmin);
        }
    }
    fprintf(tr.out, "trace    : %-22s %7u steps (%u chunks dropped); traced launch %.4f ms, untraced median %.4f ms (%+.1f%%)\n",
            name, kept, dropped, ms, untraced_ms, untraced_ms > 0 ? 100.0 * (ms / untraced_ms - 1.0) : 0.0);
    tr.launch++;
    return cudaSuccess;
}

/* One event object of the JSON array: the part between the braces. */
static void write_event(const char *fmt, ...)
{
    va_list ap;
    fputs(tr.first_event ? "\n{" : ",\n{", tr.json);
    tr.first_event = 0;
    va_start(ap, fmt);
    vfprintf(tr.json, fmt, ap);
    va_end(ap);
    fputc('}', tr.json);
}

void trace_close(void)
{
    if (tr.json == NULL) return;
    fputs("\n]}\n", tr.json);
    fclose(tr.json);
    fclose(tr.csv);
    CUDA_CHECK(cudaFree(tr.dbuf));
    CUDA_CHECK(cudaFree(tr.dcount));
    free(tr.hbuf);
    memset(&tr, 0, sizeof tr);
}
