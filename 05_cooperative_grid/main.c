/**
 * @file 05_cooperative_grid/main.c
 * @brief Chapter 05: work that needs every block to finish a step before
 *        the next, done with one launch per step, with those launches
 *        replayed as a CUDA Graph, and with one cooperative launch that
 *        synchronizes the grid; every result checked, every way timed.
 *
 * Build and run:   make chapter-05 && ./run
 *                  ./run --iters 100 --elements 4194304
 *                  ./run --blocks 100000     more blocks than can be resident: refused, exit 3
 *                  ./run --no-coop           the fallback path (as on a GPU without cooperative launch)
 *                  ./run --only groups,reduce,jacobi   the Cooperative Groups demonstrations (demos/groups.cu)
 * Options:         ./run --help
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common/check.h"
#include "../common/exit_codes.h"
#include "../common/matrix.h"
#include "../common/runner.h"
#include "../common/graph.h" /* graph_capture(), graph_run() */
#include "demos/groups.h" /* the Cooperative Groups demonstrations */
#include "kernel.h"

#define CHAPTER "05_cooperative_grid" /**< folder name, in messages and the CSV */
#define TITLE "Chapter 05: cooperative launches and grid-wide synchronization" /**< first output line */

/* What the runs and the checks share. */
typedef struct {
    chapter_env *env;
    int n, iters, grid, coop_max, per_sm, divergent;
    float *b0, *a, *b;           /* two-stage: initial b, the two arrays */
    float *x, *y;                /* softmax input and output */
    void *partials;              /* softmax: one pair per block */
    float *hb0, *ha_want, *hb_want, *hgot; /* host copies and references */
    float *hx;
    double *hy_want;
} state;

/* ------------------------------------------------------- launch refusal */

/* A cooperative launch that asks for more blocks than can be resident is
 * refused by the runtime (never started, so it cannot hang): say why, exit 3. */
static cudaError_t coop_checked(state *s, cudaError_t err)
{
    if (err == cudaErrorCooperativeLaunchTooLarge) {
        fprintf(stderr, "cooperative launch refused (%s): %d blocks requested, but at most %d (%d per SM x %d SMs) can be resident at once,\n"
                        "and grid.sync() needs every block resident. Use --blocks %d or fewer (0 picks that).\n",
                cudaGetErrorName(err), s->grid, s->coop_max, s->per_sm, s->env->dev.sms, s->coop_max);
        exit(EXIT_UNSUPPORTED);
    }
    return err;
}

/* ------------------------------------------------------------ two stages */

static void host_smooth(int n, const float *src, float *dst)
{
    int i;
    for (i = 0; i < n; ++i) {
        const float l = i > 0 ? src[i - 1] : 0.0f, r = i + 1 < n ? src[i + 1] : 0.0f;
        dst[i] = 0.25f * (l + r) + 0.5f * src[i]; /* ISO C: no contraction, same roundings */
    }
}

static void poison_two_stage(void *p)
{
    state *s = p;
    device_poison(s->a, (size_t)s->n * sizeof(float));
    device_poison(s->b, (size_t)s->n * sizeof(float));
}

/* Bit-exact: the device rounds each operation like the host does. */
static int check_two_stage(void *p, const char *name, const char *when)
{
    state *s = p;
    long bad = 0, first = -1, i;
    int which;
    for (which = 0; which < 2; ++which) {
        const float *want = which == 0 ? s->ha_want : s->hb_want;
        CUDA_CHECK(cudaMemcpy(s->hgot, which == 0 ? s->a : s->b, (size_t)s->n * sizeof(float),
                              cudaMemcpyDeviceToHost));
        for (i = 0; i < s->n; ++i)
            if (memcmp(&s->hgot[i], &want[i], sizeof(float)) != 0) {
                if (first < 0) first = i;
                ++bad;
            }
    }
    if (bad == 0) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  a and b (%d elements each) bit-identical to the host\n",
                name, when, s->n);
        return 1;
    }
    fprintf(s->env->out, "  %-22s %-12s FAILED  %ld elements differ, first at %ld\n", name, when, bad, first);
    return 0;
}

static cudaError_t run_two_stage_launches(void *p, cudaStream_t st)
{
    state *s = p;
    cudaError_t err = cudaMemcpyAsync(s->b, s->b0, (size_t)s->n * sizeof(float),
                                      cudaMemcpyDeviceToDevice, st);
    return err != cudaSuccess ? err : launch_two_stage_launches(s->n, s->iters, s->a, s->b, s->grid, st);
}

static cudaError_t run_two_stage_cooperative(void *p, cudaStream_t st)
{
    state *s = p;
    cudaError_t err = cudaMemcpyAsync(s->b, s->b0, (size_t)s->n * sizeof(float),
                                      cudaMemcpyDeviceToDevice, st);
    return err != cudaSuccess ? err
                              : coop_checked(s, launch_two_stage_cooperative(s->n, s->iters, s->a, s->b,
                                                                             s->grid, s->divergent, st));
}

static int two_stage_section(state *s, int coop)
{
    chapter_env *e = s->env;
    report_row rows[3];
    char knobs[3][96];
    cudaGraphExec_t graph;
    double capture_ms;
    int i, nrows = 0, ok = 1;
    /* what check_two_stage() reads, for --dump and --check-dump */
    const run_output outs[2] = {{s->a, (size_t)s->n * sizeof(float)}, {s->b, (size_t)s->n * sizeof(float)}};

    memcpy(s->hb_want, s->hb0, (size_t)s->n * sizeof(float));
    for (i = 0; i < s->iters; ++i) {
        host_smooth(s->n, s->hb_want, s->ha_want);
        host_smooth(s->n, s->ha_want, s->hb_want);
    }
    fprintf(e->out, "\n[two_stage] a <- smooth(b); barrier; b <- smooth(a); barrier; %d times, %d elements\n",
            s->iters, s->n);

    graph = graph_capture(run_two_stage_launches, s, &capture_ms);
    snprintf(knobs[0], sizeof knobs[0], "launches=%d grid=%d%s", 2 * s->iters, s->grid, coop_knobs);
    snprintf(knobs[1], sizeof knobs[1], "graph_nodes=%d capture_ms=%.1f grid=%d%s", 2 * s->iters + 1,
             capture_ms, s->grid, coop_knobs);
    snprintf(knobs[2], sizeof knobs[2], "launches=1 grid_syncs=%d grid=%d%s", 2 * s->iters, s->grid, coop_knobs);
    run_checked_outputs(e, "two_stage_launches", knobs[0], run_two_stage_launches, s, poison_two_stage,
                        check_two_stage, s, outs, 2, &rows[nrows++]);
    run_checked_outputs(e, "two_stage_graph", knobs[1], graph_run, &graph, poison_two_stage, check_two_stage,
                        s, outs, 2, &rows[nrows++]);
    if (coop)
        run_checked_outputs(e, "two_stage_cooperative", knobs[2], run_two_stage_cooperative, s,
                            poison_two_stage, check_two_stage, s, outs, 2, &rows[nrows++]);
    CUDA_CHECK(cudaGraphExecDestroy(graph));
    if (e->o.check_dump == NULL) {
        fprintf(e->out, "\n");
        report_demo_table(e->out, rows, nrows, s->iters, "iter");
        e->ctx.m = s->iters;
        e->ctx.n = s->n;
        e->ctx.k = 0;
        chapter_emit(e, rows, nrows);
    }
    for (i = 0; i < nrows; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;
    return ok;
}

/* --------------------------------------------------------------- softmax */

static void poison_softmax(void *p)
{
    state *s = p;
    device_poison(s->y, (size_t)s->n * sizeof(float));
}

/* Every element against fp64. The float sums are a per-thread sequential
 * part, a tree over the block and a merge of the blocks' partials; each
 * step's rounding is bounded by its number of terms times 2^-24 (relative,
 * all terms positive), and expf, the rescaling by expf and the final
 * multiply add a few ulp each; the tolerance is twice that total. */
static int check_softmax(void *p, const char *name, const char *when)
{
    state *s = p;
    const double eps = ldexp(1.0, -24);
    const int threads = coop_threads();
    const double per_thread = ceil((double)s->n / ((double)s->grid * threads));
    const double terms = per_thread + 2.0 * log2((double)threads) + ceil((double)s->grid / threads) + 2.0;
    const double rel = 2.0 * (terms * 3.0 + 8.0) * eps;
    long bad = 0, first = -1, i;
    double worst = 0.0;
    CUDA_CHECK(cudaMemcpy(s->hgot, s->y, (size_t)s->n * sizeof(float), cudaMemcpyDeviceToHost));
    for (i = 0; i < s->n; ++i) {
        const double err = fabs(s->hgot[i] - s->hy_want[i]), tol = rel * s->hy_want[i];
        if (!(err <= tol)) {
            if (first < 0) first = i;
            ++bad;
        }
        if (err / tol > worst) worst = err / tol;
    }
    if (bad == 0) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  %d elements, max err = %.3f tol (tol %.1e relative)\n",
                name, when, s->n, worst, rel);
        return 1;
    }
    fprintf(s->env->out, "  %-22s %-12s FAILED  %ld of %d elements wrong, first at %ld: got %.8g, want %.8g\n",
            name, when, bad, s->n, first, s->hgot[first], s->hy_want[first]);
    return 0;
}

static cudaError_t run_softmax_two_kernels(void *p, cudaStream_t st)
{
    state *s = p;
    return launch_softmax_two_kernels(s->n, s->x, s->y, s->partials, s->grid, st);
}

static cudaError_t run_softmax_cooperative(void *p, cudaStream_t st)
{
    state *s = p;
    return coop_checked(s, launch_softmax_cooperative(s->n, s->x, s->y, s->partials, s->grid, st));
}

static int softmax_section(state *s, int coop)
{
    chapter_env *e = s->env;
    report_row rows[2];
    char knobs[2][64];
    double mx = -INFINITY, sum = 0.0;
    int i, nrows = 0, ok = 1;
    const run_output out = {s->y, (size_t)s->n * sizeof(float)}; /* what check_softmax() reads */
    for (i = 0; i < s->n; ++i) mx = s->hx[i] > mx ? s->hx[i] : mx;
    for (i = 0; i < s->n; ++i) sum += exp(s->hx[i] - mx);
    for (i = 0; i < s->n; ++i) s->hy_want[i] = exp(s->hx[i] - mx) / sum;
    fprintf(e->out, "\n[softmax] y = exp(x - max x) / sum exp(x - max x) over one vector of %d elements\n", s->n);
    snprintf(knobs[0], sizeof knobs[0], "launches=2 grid=%d%s", s->grid, coop_knobs);
    snprintf(knobs[1], sizeof knobs[1], "launches=1 grid_syncs=1 grid=%d%s", s->grid, coop_knobs);
    run_checked_outputs(e, "softmax_two_kernels", knobs[0], run_softmax_two_kernels, s, poison_softmax,
                        check_softmax, s, &out, 1, &rows[nrows++]);
    if (coop)
        run_checked_outputs(e, "softmax_cooperative", knobs[1], run_softmax_cooperative, s, poison_softmax,
                            check_softmax, s, &out, 1, &rows[nrows++]);
    if (e->o.check_dump == NULL) {
        fprintf(e->out, "\n");
        report_demo_table(e->out, rows, nrows, 1, "softmax");
        e->ctx.m = 1;
        e->ctx.n = s->n;
        e->ctx.k = 0;
        chapter_emit(e, rows, nrows);
    }
    for (i = 0; i < nrows; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;
    return ok;
}

/* ------------------------------------------------------- the barrier alone */

static cudaError_t run_empty_grids(void *p, cudaStream_t st)
{
    state *s = p;
    return launch_empty_grids(s->iters, s->grid, st);
}

static cudaError_t run_sync_loop(void *p, cudaStream_t st)
{
    state *s = p;
    return coop_checked(s, launch_sync_loop(s->iters, s->grid, st));
}

/* grid.sync() at 1, 2, 4, ... blocks per SM (up to the most that fit), or
 * at the --blocks grid only: its cost grows with the number of blocks. */
static void sync_section(state *s, int coop, int fixed_grid)
{
    chapter_env *e = s->env;
    report_row rows[12];
    char knobs[12][80];
    cudaGraphExec_t graph;
    double capture_ms;
    int nrows = 0, per_sm, full_grid = s->grid;
    fprintf(e->out, "\n[sync] the barrier alone: %d empty launches of %d blocks, as a graph, and %d grid.sync() in one launch\n",
            s->iters, s->grid, s->iters);
    graph = graph_capture(run_empty_grids, s, &capture_ms);
    snprintf(knobs[0], sizeof knobs[0], "launches=%d grid=%d%s", s->iters, s->grid, coop_knobs);
    snprintf(knobs[1], sizeof knobs[1], "graph_nodes=%d grid=%d%s", s->iters, s->grid, coop_knobs);
    run_checked(e, "sync_empty_launches", knobs[0], run_empty_grids, s, NULL, NULL, NULL, &rows[nrows++]);
    run_checked(e, "sync_empty_graph", knobs[1], graph_run, &graph, NULL, NULL, NULL, &rows[nrows++]);
    CUDA_CHECK(cudaGraphExecDestroy(graph));
    for (per_sm = 1; coop && per_sm <= s->per_sm && nrows < 12; per_sm *= 2) {
        if (!fixed_grid) s->grid = per_sm * e->dev.sms;
        snprintf(knobs[nrows], sizeof knobs[nrows], "launches=1 grid_syncs=%d grid=%d%s", s->iters, s->grid, coop_knobs);
        run_checked(e, "sync_grid", knobs[nrows], run_sync_loop, s, NULL, NULL, NULL, &rows[nrows]);
        ++nrows;
        if (fixed_grid) break;
    }
    s->grid = full_grid;
    fprintf(e->out, "\n");
    report_demo_table(e->out, rows, nrows, s->iters, "barrier");
    e->ctx.m = s->iters;
    e->ctx.n = 0;
    e->ctx.k = 0;
    chapter_emit(e, rows, nrows);
}

/* ------------------------------------------------------------------ main */

/** @brief Parse, find the GPU, size the grid, run the three parts; exit code as in exit_codes.h. */
int main(int argc, char **argv)
{
    chapter_env env;
    state s;
    option_extra extras[] = {
        {"elements", "vector length of the two-stage update and the softmax", 1, 1L << 28, 1L << 18},
        {"iters", "iterations of the two-stage update and of the barrier timing", 1, 1000000, 1000},
        {"blocks", "grid size (0: the most blocks that can be resident at once)", 0, 1000000, 0},
        {"no-coop", "do not use cooperative launches (the fallback path)", 0, 0, 0},
        {"divergent-sync", "block 0 skips a grid.sync(): the deadlock, caught by the watchdog", 0, 0, 0},
        {"reduce-elements", "floats summed by the reductions (--only reduce)", 1, 1L << 28, 1L << 24},
        {"jacobi-side", "side of the Jacobi grid (--only jacobi)", 3, 16384, 4096},
        {"jacobi-iters", "Jacobi sweeps", 1, 100000, 100},
    };
    int rc, coop_attr = 0, coop, ok = 1, blocks, per_sm2, max2;

    options_defaults(&env.o);
    env.o.mnk = 0; /* no matrices here: --elements instead of --m/--n/--k */
    env.o.names = "two_stage softmax sync groups reduce jacobi"; /* the parts, for --only */
    env.o.extra = extras;
    env.o.nextra = (int)(sizeof extras / sizeof extras[0]);
    rc = chapter_parse(&env, argc, argv, CHAPTER, TITLE);
    if (rc >= 0) return rc;
    if (options_extra_value(&env.o, "divergent-sync") && options_extra_value(&env.o, "no-coop")) {
        fprintf(stderr, CHAPTER ": --divergent-sync needs cooperative launches (drop --no-coop)\n");
        return EXIT_USAGE;
    }
    chapter_start(&env, CHAPTER, TITLE);

    memset(&s, 0, sizeof s);
    s.env = &env;
    s.n = (int)options_extra_value(&env.o, "elements");
    s.iters = (int)options_extra_value(&env.o, "iters");
    s.divergent = (int)options_extra_value(&env.o, "divergent-sync");
    blocks = (int)options_extra_value(&env.o, "blocks");

    // [attribute]
    CUDA_CHECK(cudaDeviceGetAttribute(&coop_attr, cudaDevAttrCooperativeLaunch, env.dev.id));
    coop = coop_attr && !options_extra_value(&env.o, "no-coop");
    if (!coop)
        fprintf(env.out, "cooperative launch %s: the cooperative rows are left out, the results come from the multi-launch path\n",
                coop_attr ? "turned off (--no-coop)" : "NOT supported on this device");
    // [attribute]
    if (s.divergent && !coop) {
        fprintf(stderr, CHAPTER ": --divergent-sync: this device has no cooperative launch\n");
        return EXIT_UNSUPPORTED;
    }

    /* One grid for every version: the most blocks that can be resident at
     * once, by the strictest of the cooperative kernels. */
    CUDA_CHECK(coop_max_blocks(COOP_TWO_STAGE, &s.per_sm, &s.coop_max));
    CUDA_CHECK(coop_max_blocks(COOP_SOFTMAX, &per_sm2, &max2));
    if (max2 < s.coop_max) s.coop_max = max2, s.per_sm = per_sm2;
    CUDA_CHECK(coop_max_blocks(COOP_SYNC_LOOP, &per_sm2, &max2));
    if (max2 < s.coop_max) s.coop_max = max2, s.per_sm = per_sm2;
    s.grid = blocks > 0 ? blocks : s.coop_max;
    fprintf(env.out, "grid     : %d blocks of %d threads (at most %d resident at once: %d per SM x %d SMs)\n",
            s.grid, coop_threads(), s.coop_max, s.per_sm, env.dev.sms);
    fprintf(env.out, "timing   : %d warm-up + %d timed runs per row, CUDA events, median (min, max)\n",
            env.o.warmup, env.o.reps);
    if (coop && s.grid > s.coop_max) { /* the runtime refuses it: coop_checked() says why, exit 3 */
        CUDA_CHECK(coop_checked(&s, launch_sync_loop(1, s.grid, 0)));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    s.hb0 = xmalloc((size_t)s.n * sizeof(float));
    s.ha_want = xmalloc((size_t)s.n * sizeof(float));
    s.hb_want = xmalloc((size_t)s.n * sizeof(float));
    s.hgot = xmalloc((size_t)s.n * sizeof(float));
    s.hx = xmalloc((size_t)s.n * sizeof(float));
    s.hy_want = xmalloc((size_t)s.n * sizeof(double));
    fill_uniform(s.hb0, (size_t)s.n, env.o.seed, 0);
    fill_uniform(s.hx, (size_t)s.n, env.o.seed, 1);
    for (rc = 0; rc < s.n; ++rc) s.hx[rc] *= 8.0f; /* [-8, 8]: exp() spans 7 orders of magnitude */
    CUDA_CHECK(cudaMalloc((void **)&s.b0, (size_t)s.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.a, (size_t)s.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.b, (size_t)s.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.x, (size_t)s.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.y, (size_t)s.n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&s.partials, (size_t)s.grid * coop_partial_bytes()));
    CUDA_CHECK(cudaMemcpy(s.b0, s.hb0, (size_t)s.n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(s.x, s.hx, (size_t)s.n * sizeof(float), cudaMemcpyHostToDevice));

    if (options_selects(&env.o, "two_stage")) ok = two_stage_section(&s, coop) && ok;
    if (options_selects(&env.o, "softmax")) ok = softmax_section(&s, coop) && ok;
    if (options_selects(&env.o, "sync")) sync_section(&s, coop, blocks > 0);
    ok = groups_demo(&env, coop, s.n, (int)options_extra_value(&env.o, "reduce-elements"),
                     (int)options_extra_value(&env.o, "jacobi-side"),
                     (int)options_extra_value(&env.o, "jacobi-iters")) && ok;

    CUDA_CHECK(cudaFree(s.b0));
    CUDA_CHECK(cudaFree(s.a));
    CUDA_CHECK(cudaFree(s.b));
    CUDA_CHECK(cudaFree(s.x));
    CUDA_CHECK(cudaFree(s.y));
    CUDA_CHECK(cudaFree(s.partials));
    free(s.hb0);
    free(s.ha_want);
    free(s.hb_want);
    free(s.hgot);
    free(s.hx);
    free(s.hy_want);

    return chapter_finish(&env, ok);
}
