/**
 * @file 05_cooperative_grid/demos/groups_demo.c
 * @brief Chapter 05's Cooperative Groups demonstrations (groups.cu): the
 *        tour of the API, checked value by value against the host; four
 *        block reductions and a grid-wide sum three ways, checked against
 *        fp64; a 2-D Jacobi iteration, bit-identical to the host's.
 */
#include "groups.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../../common/matrix.h"
#include "../../common/graph.h" /* graph_capture(), graph_run() */

/* What the runs and the checks share. */
typedef struct {
    chapter_env *env;
    int coop;
    /* the tour */
    int n_tour;
    int *dv, *hv;
    tour_result *dtour, *htour;
    /* the reductions */
    int n, grid, coop_grid;
    sum_way way;
    block_reduce_way bway;
    float *dx, *dpartial, *dtotal, *hx, *hpartial;
    /* Jacobi */
    int side, iters, jgrid, jcoop_grid;
    float *du0, *du, *dv2, *hu0, *hwant, *hgot;
} groups_state;

/* ------------------------------------------------------------ the tour */

static int tour_value(const groups_state *s, long i)
{
    return i < s->n_tour ? s->hv[i] : 0; /* threads past n hold 0, as in the kernel */
}

/* The expected results of thread i, from the values of its tiles. */
static tour_result tour_expected(const groups_state *s, long i)
{
    static const int sizes[4] = {32, 16, 8, 4};
    tour_result r;
    const int v = tour_value(s, i), lane = (int)(i % 32), rank_in_block = (int)(i % GROUPS_THREADS);
    const long warp0 = i - lane;
    int k, j, c;
    for (k = 0; k < 4; ++k) {
        const long t0 = i - i % sizes[k];
        r.sum[k] = 0;
        for (j = 0; j < sizes[k]; ++j) r.sum[k] += tour_value(s, t0 + j);
    }
    r.shfl_sum = i % 16 == 0 ? r.sum[1] : -1;
    r.ballot = 0;
    r.match = 0;
    for (j = 0; j < 32; ++j) {
        const int w = tour_value(s, warp0 + j);
        if (w % 3 == 0) r.ballot |= 1u << j;
        if (w % 4 == v % 4) r.match |= 1u << j;
    }
    {
        const long t0 = i - i % 8;
        int any = 0, all = 1;
        for (j = 0; j < 8; ++j) {
            any = any || tour_value(s, t0 + j) == 0;
            all = all && tour_value(s, t0 + j) < 5;
        }
        r.any_all = any | (all << 1);
    }
    r.meta = rank_in_block / 8 * 100 + GROUPS_THREADS / 8;
    r.coalesced = -1;
    if (v % 2) {
        int size = 0, rank = 0;
        for (j = 0; j < 32; ++j)
            if (tour_value(s, warp0 + j) % 2) {
                ++size;
                if (j < lane) ++rank;
            }
        r.coalesced = size * 100 + rank;
    }
    for (c = 0, k = 0, j = 0; j < 32; ++j)
        if (tour_value(s, warp0 + j) % 3 == v % 3) {
            ++c;
            if (j < lane) ++k;
        }
    r.labeled = c * 100 + k;
    r.broadcast = tour_value(s, warp0 + 5);
    for (r.scan = 0, j = (int)(i - i % 8); j <= i; ++j) r.scan += tour_value(s, j);
    r.xor_sum = r.sum[1];
    r.neighbour = tour_value(s, i - i % 16 + (i + 1) % 16);
    r.grid_rank = (int)i;
    r.grid_size = (s->n_tour + GROUPS_THREADS - 1) / GROUPS_THREADS * GROUPS_THREADS;
    r.grid_valid = 0; /* check_tour() reports the device's answer instead of comparing it */
    return r;
}

static void poison_tour(void *p)
{
    groups_state *s = p;
    device_poison(s->dtour, (size_t)s->n_tour * sizeof(tour_result));
}

static int check_tour(void *p, const char *name, const char *when)
{
    groups_state *s = p;
    long i, bad = 0, first = -1, valid = 0;
    CUDA_CHECK(cudaMemcpy(s->htour, s->dtour, (size_t)s->n_tour * sizeof(tour_result), cudaMemcpyDeviceToHost));
    for (i = 0; i < s->n_tour; ++i) {
        tour_result want = tour_expected(s, i);
        /* is_valid() in an ordinary launch depends on what ran before it
         * (groups_tour()): counted and printed, the same in every thread */
        valid += s->htour[i].grid_valid == 1;
        if (s->htour[i].grid_valid == 0 || s->htour[i].grid_valid == 1) want.grid_valid = s->htour[i].grid_valid;
        if (memcmp(&want, &s->htour[i], sizeof want) != 0) {
            if (first < 0) first = i;
            ++bad;
        }
    }
    if (bad == 0 && (valid == 0 || valid == s->n_tour)) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  %d threads: every tile size, shuffle, vote, match and group as the host predicts"
                             "; this_grid().is_valid() in this ordinary launch: %s\n",
                name, when, s->n_tour, valid ? "true" : "false");
        return 1;
    }
    if (bad == 0) {
        fprintf(s->env->out, "  %-22s %-12s FAILED  this_grid().is_valid() differs between threads of one launch (%ld of %d true)\n",
                name, when, valid, s->n_tour);
        return 0;
    }
    {
        const tour_result w = tour_expected(s, first), g = s->htour[first];
        fprintf(s->env->out, "  %-22s %-12s FAILED  %ld of %d threads differ; thread %ld: sums %d %d %d %d (want %d %d %d %d), "
                             "shfl %d (%d), ballot %08x (%08x), any/all %d (%d), match %08x (%08x), meta %d (%d), "
                             "coalesced %d (%d), labeled %d (%d), broadcast %d (%d), scan %d (%d), xor %d (%d), "
                             "neighbour %d (%d), grid rank %d (%d), grid size %d (%d), is_valid %d\n",
                name, when, bad, s->n_tour, first, g.sum[0], g.sum[1], g.sum[2], g.sum[3], w.sum[0], w.sum[1], w.sum[2],
                w.sum[3], g.shfl_sum, w.shfl_sum, g.ballot, w.ballot, g.any_all, w.any_all, g.match, w.match, g.meta,
                w.meta, g.coalesced, w.coalesced, g.labeled, w.labeled, g.broadcast, w.broadcast, g.scan, w.scan,
                g.xor_sum, w.xor_sum, g.neighbour, w.neighbour, g.grid_rank, w.grid_rank, g.grid_size, w.grid_size,
                g.grid_valid);
    }
    return 0;
}

static cudaError_t run_tour(void *p, cudaStream_t st)
{
    groups_state *s = p;
    return launch_groups_tour(s->n_tour, s->dv, s->dtour, st);
}

static int tour_section(groups_state *s)
{
    chapter_env *e = s->env;
    report_row row;
    char knobs[48];
    snprintf(knobs, sizeof knobs, "threads=%d blocks=%d", GROUPS_THREADS, (s->n_tour + GROUPS_THREADS - 1) / GROUPS_THREADS);
    fprintf(e->out, "\n[groups] the hierarchy on known data: tiles of 32/16/8/4, cg::reduce, shfl, shfl_up, shfl_down,\n"
                    "         shfl_xor, a tile's sync(), ballot, any/all, match_any, meta_group_rank, coalesced_threads(),\n"
                    "         labeled_partition() and this_grid()'s thread_rank, size and is_valid; %d threads\n",
            s->n_tour);
    run_checked(e, "groups_tour", knobs, run_tour, s, poison_tour, check_tour, s, &row);
    fprintf(e->out, "\n");
    report_demo_table(e->out, &row, 1, 1, "call");
    e->ctx.m = 1;
    e->ctx.n = s->n_tour;
    e->ctx.k = 0;
    chapter_emit(e, &row, 1);
    return strcmp(row.verified, "NO") != 0;
}

/* ------------------------------------------------------- the reductions */

/* A bound on the rounding error of a float sum whose every term passes
 * through at most `depth` additions (first order): depth * 2^-24 * sum |x|,
 * doubled. A wrong or missing term is far bigger for these inputs. */
static double sum_tolerance(double depth, double abs_sum)
{
    return 2.0 * (depth + 2.0) * ldexp(1.0, -24) * abs_sum;
}

static int log2_ceil(long v)
{
    int l = 0;
    while ((1L << l) < v) ++l;
    return l;
}

static void poison_partials(void *p)
{
    groups_state *s = p;
    const int blocks = (s->n + GROUPS_THREADS - 1) / GROUPS_THREADS;
    device_poison(s->dpartial, (size_t)blocks * sizeof(float));
}

/* Every block's partial against its 256 elements summed in fp64. */
static int check_partials(void *p, const char *name, const char *when)
{
    groups_state *s = p;
    const int blocks = (s->n + GROUPS_THREADS - 1) / GROUPS_THREADS;
    long bad = 0, first = -1, b;
    double worst = 0.0;
    CUDA_CHECK(cudaMemcpy(s->hpartial, s->dpartial, (size_t)blocks * sizeof(float), cudaMemcpyDeviceToHost));
    for (b = 0; b < blocks; ++b) {
        double want = 0.0, abs_sum = 0.0, tol, err;
        long i;
        for (i = b * GROUPS_THREADS; i < (b + 1) * GROUPS_THREADS && i < s->n; ++i) {
            want += s->hx[i];
            abs_sum += fabs(s->hx[i]);
        }
        tol = sum_tolerance(log2_ceil(GROUPS_THREADS), abs_sum);
        err = fabs(s->hpartial[b] - want);
        if (!(err <= tol)) {
            if (first < 0) first = b;
            ++bad;
        }
        if (tol > 0 && err / tol > worst) worst = err / tol;
    }
    if (bad == 0) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  %d block sums, max err = %.3f tol\n", name, when, blocks, worst);
        return 1;
    }
    fprintf(s->env->out, "  %-22s %-12s FAILED  %ld of %d block sums wrong, first: block %ld = %.8g\n", name, when, bad,
            blocks, first, s->hpartial[first]);
    return 0;
}

static cudaError_t run_block_reduce(void *p, cudaStream_t st)
{
    groups_state *s = p;
    return launch_block_reduce(s->bway, s->n, s->dx, s->dpartial, st);
}

static void poison_total(void *p)
{
    groups_state *s = p;
    device_poison(s->dtotal, sizeof(float));
}

/* The total against fp64; the depth of its summation tree depends on the way. */
static int check_total(void *p, const char *name, const char *when)
{
    groups_state *s = p;
    const int grid = s->way == SUM_COOPERATIVE ? s->coop_grid : s->grid;
    const long per_thread = ((long)s->n + (long)grid * GROUPS_THREADS - 1) / ((long)grid * GROUPS_THREADS);
    const double combine = s->way == SUM_ATOMIC ? grid : (grid + GROUPS_THREADS - 1) / GROUPS_THREADS + 10.0;
    double want = 0.0, abs_sum = 0.0, tol, err;
    float got;
    long i;
    for (i = 0; i < s->n; ++i) {
        want += s->hx[i];
        abs_sum += fabs(s->hx[i]);
    }
    tol = sum_tolerance((double)per_thread + 10.0 + combine, abs_sum);
    CUDA_CHECK(cudaMemcpy(&got, s->dtotal, sizeof got, cudaMemcpyDeviceToHost));
    err = fabs(got - want);
    if (err <= tol) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  sum = %.6g, fp64 %.6g, err = %.3f tol\n", name, when, got, want,
                tol > 0 ? err / tol : 0.0);
        return 1;
    }
    fprintf(s->env->out, "  %-22s %-12s FAILED  sum = %.8g, fp64 %.8g (err %.3g > tol %.3g)\n", name, when, got, want,
            err, tol);
    return 0;
}

static cudaError_t run_sum(void *p, cudaStream_t st)
{
    groups_state *s = p;
    if (s->way == SUM_COOPERATIVE) {
        const cudaError_t err = launch_sum(s->way, s->n, s->dx, s->dpartial, s->dtotal, s->coop_grid, st);
        if (err == cudaErrorCooperativeLaunchTooLarge) {
            fprintf(stderr, "cooperative launch refused: %d blocks cannot all be resident\n", s->coop_grid);
            exit(EXIT_UNSUPPORTED);
        }
        return err;
    }
    return launch_sum(s->way, s->n, s->dx, s->dpartial, s->dtotal, s->grid, st);
}

static int reduce_section(groups_state *s)
{
    static const char *bnames[4] = {"block_reduce_tree", "block_reduce_shfl", "block_reduce_cg32", "block_reduce_cg8"};
    /* (no commas: the knobs are a CSV field) */
    static const char *bknobs[4] = {"shared-memory tree: __syncthreads() per level",
                                    "__shfl_down_sync by hand; then warp 0",
                                    "tiled_partition<32> + cg::reduce; then tile 0",
                                    "tiled_partition<8> + cg::reduce; then warp 0"};
    static const char *snames[3] = {"sum_two_kernels", "sum_cooperative", "sum_atomic"};
    chapter_env *e = s->env;
    report_row rows[4];
    char knobs[3][96];
    int i, nrows = 0, ok = 1;

    fprintf(e->out, "\n[reduce] block reductions: %d floats, one per thread, a sum per block of %d (%d blocks)\n", s->n,
            GROUPS_THREADS, (s->n + GROUPS_THREADS - 1) / GROUPS_THREADS);
    for (i = 0; i < 4; ++i) {
        s->bway = (block_reduce_way)i;
        run_checked(e, bnames[i], bknobs[i], run_block_reduce, s, poison_partials, check_partials, s, &rows[i]);
    }
    fprintf(e->out, "\n");
    report_demo_table(e->out, rows, 4, 1, "call");
    e->ctx.m = 1;
    e->ctx.n = s->n;
    e->ctx.k = 0;
    chapter_emit(e, rows, 4);
    for (i = 0; i < 4; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;

    fprintf(e->out, "\n[reduce] the sum of all %d floats: block sums, then one sum of them\n", s->n);
    snprintf(knobs[0], sizeof knobs[0], "launches=2 grid=%d", s->grid);
    snprintf(knobs[1], sizeof knobs[1], "launches=1 grid_syncs=1 grid=%d", s->coop_grid);
    snprintf(knobs[2], sizeof knobs[2], "launches=1 atomics=%d grid=%d", s->grid, s->grid);
    for (i = 0; i < 3; ++i) {
        if (i == SUM_COOPERATIVE && !s->coop) continue;
        s->way = (sum_way)i;
        run_checked(e, snames[i], knobs[i], run_sum, s, poison_total, check_total, s, &rows[nrows++]);
    }
    fprintf(e->out, "\n");
    report_demo_table(e->out, rows, nrows, 1, "call");
    chapter_emit(e, rows, nrows);
    for (i = 0; i < nrows; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;
    return ok;
}

/* --------------------------------------------------------------- Jacobi */

/* The host's sweeps, rounded as the kernel's are (C without contraction). */
static void host_jacobi(int n, int iters, const float *u0, float *want)
{
    float *a = xmalloc((size_t)n * n * sizeof *a), *b = xmalloc((size_t)n * n * sizeof *b);
    int it, r, c;
    memcpy(a, u0, (size_t)n * n * sizeof *a);
    memcpy(b, u0, (size_t)n * n * sizeof *b);
    for (it = 0; it < iters; ++it) {
        const float *src = it % 2 == 0 ? a : b;
        float *dst = it % 2 == 0 ? b : a;
        for (r = 1; r < n - 1; ++r)
            for (c = 1; c < n - 1; ++c) {
                const long q = (long)r * n + c;
                const float ns = src[q - n] + src[q + n], we = src[q - 1] + src[q + 1];
                dst[q] = 0.25f * (ns + we);
            }
    }
    memcpy(want, iters % 2 == 0 ? a : b, (size_t)n * n * sizeof *want);
    free(a);
    free(b);
}

static void poison_jacobi(void *p)
{
    groups_state *s = p;
    device_poison(s->du, (size_t)s->side * s->side * sizeof(float));
    device_poison(s->dv2, (size_t)s->side * s->side * sizeof(float));
}

static int check_jacobi(void *p, const char *name, const char *when)
{
    groups_state *s = p;
    const size_t cells = (size_t)s->side * s->side;
    long bad = 0, first = -1;
    size_t i;
    CUDA_CHECK(cudaMemcpy(s->hgot, s->iters % 2 == 0 ? s->du : s->dv2, cells * sizeof(float), cudaMemcpyDeviceToHost));
    for (i = 0; i < cells; ++i)
        if (memcmp(&s->hgot[i], &s->hwant[i], sizeof(float)) != 0) {
            if (first < 0) first = (long)i;
            ++bad;
        }
    if (bad == 0) {
        fprintf(s->env->out, "  %-22s %-12s PASSED  %d x %d grid after %d sweeps, bit-identical to the host\n", name,
                when, s->side, s->side, s->iters);
        return 1;
    }
    fprintf(s->env->out, "  %-22s %-12s FAILED  %ld cells differ, first (%ld, %ld)\n", name, when, bad,
            first / s->side, first % s->side);
    return 0;
}

/* Every run starts from the initial grid: both arrays, borders included. */
static cudaError_t reset_jacobi(groups_state *s, cudaStream_t st)
{
    const size_t bytes = (size_t)s->side * s->side * sizeof(float);
    cudaError_t err = cudaMemcpyAsync(s->du, s->du0, bytes, cudaMemcpyDeviceToDevice, st);
    return err != cudaSuccess ? err : cudaMemcpyAsync(s->dv2, s->du0, bytes, cudaMemcpyDeviceToDevice, st);
}

static cudaError_t run_jacobi_launches(void *p, cudaStream_t st)
{
    groups_state *s = p;
    const cudaError_t err = reset_jacobi(s, st);
    return err != cudaSuccess ? err : launch_jacobi_launches(s->side, s->iters, s->du, s->dv2, s->jgrid, st);
}

static cudaError_t run_jacobi_cooperative(void *p, cudaStream_t st)
{
    groups_state *s = p;
    cudaError_t err = reset_jacobi(s, st);
    if (err != cudaSuccess) return err;
    err = launch_jacobi_cooperative(s->side, s->iters, s->du, s->dv2, s->jcoop_grid, st);
    if (err == cudaErrorCooperativeLaunchTooLarge) {
        fprintf(stderr, "cooperative launch refused: %d blocks cannot all be resident\n", s->jcoop_grid);
        exit(EXIT_UNSUPPORTED);
    }
    return err;
}

static int jacobi_section(groups_state *s)
{
    chapter_env *e = s->env;
    report_row rows[3];
    char knobs[3][96];
    cudaGraphExec_t graph;
    double capture_ms;
    int i, nrows = 0, ok = 1;

    fprintf(e->out, "\n[jacobi] %d sweeps of a %d x %d grid (each cell: the mean of its 4 neighbours; fixed border)\n",
            s->iters, s->side, s->side);
    host_jacobi(s->side, s->iters, s->hu0, s->hwant);
    graph = graph_capture(run_jacobi_launches, s, &capture_ms);
    snprintf(knobs[0], sizeof knobs[0], "launches=%d grid=%d", s->iters, s->jgrid);
    snprintf(knobs[1], sizeof knobs[1], "graph_nodes=%d capture_ms=%.1f grid=%d", s->iters + 2, capture_ms, s->jgrid);
    snprintf(knobs[2], sizeof knobs[2], "launches=1 grid_syncs=%d grid=%d", s->iters, s->jcoop_grid);
    run_checked(e, "jacobi_launches", knobs[0], run_jacobi_launches, s, poison_jacobi, check_jacobi, s, &rows[nrows++]);
    run_checked(e, "jacobi_graph", knobs[1], graph_run, &graph, poison_jacobi, check_jacobi, s, &rows[nrows++]);
    if (s->coop)
        run_checked(e, "jacobi_cooperative", knobs[2], run_jacobi_cooperative, s, poison_jacobi, check_jacobi, s,
                    &rows[nrows++]);
    CUDA_CHECK(cudaGraphExecDestroy(graph));
    fprintf(e->out, "\n");
    report_demo_table(e->out, rows, nrows, s->iters, "sweep");
    e->ctx.m = s->iters;
    e->ctx.n = (long)s->side * s->side;
    e->ctx.k = 0;
    chapter_emit(e, rows, nrows);
    for (i = 0; i < nrows; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;
    return ok;
}

/* ------------------------------------------------------------------ entry */

int groups_demo(chapter_env *e, int coop, int n_tour, int n_reduce, int side, int iters)
{
    groups_state s;
    int ok = 1, i, partials;
    memset(&s, 0, sizeof s);
    s.env = e;
    s.coop = coop;

    if (options_selects(&e->o, "groups")) {
        s.n_tour = n_tour;
        s.hv = xmalloc((size_t)n_tour * sizeof(int));
        s.htour = xmalloc((size_t)n_tour * sizeof(tour_result));
        {
            float *u = xmalloc((size_t)n_tour * sizeof *u);
            fill_uniform(u, (size_t)n_tour, e->o.seed, 5);
            for (i = 0; i < n_tour; ++i) s.hv[i] = (int)floorf(5.0f * (u[i] + 1.0f)) % 10; /* 0 .. 9 */
            free(u);
        }
        CUDA_CHECK(cudaMalloc((void **)&s.dv, (size_t)n_tour * sizeof(int)));
        CUDA_CHECK(cudaMalloc((void **)&s.dtour, (size_t)n_tour * sizeof(tour_result)));
        CUDA_CHECK(cudaMemcpy(s.dv, s.hv, (size_t)n_tour * sizeof(int), cudaMemcpyHostToDevice));
        ok = tour_section(&s) && ok;
        CUDA_CHECK(cudaFree(s.dv));
        CUDA_CHECK(cudaFree(s.dtour));
        free(s.hv);
        free(s.htour);
    }

    if (options_selects(&e->o, "reduce")) {
        const int blocks = (n_reduce + GROUPS_THREADS - 1) / GROUPS_THREADS;
        s.n = n_reduce;
        CUDA_CHECK(groups_coop_blocks(0, &s.coop_grid));
        s.grid = s.coop_grid; /* the same grid for every way of the sum */
        partials = blocks > s.grid ? blocks : s.grid; /* the block reductions' or the sums' */
        s.hx = xmalloc((size_t)n_reduce * sizeof(float));
        s.hpartial = xmalloc((size_t)partials * sizeof(float));
        fill_uniform(s.hx, (size_t)n_reduce, e->o.seed, 6);
        CUDA_CHECK(cudaMalloc((void **)&s.dx, (size_t)n_reduce * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&s.dpartial, (size_t)partials * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&s.dtotal, sizeof(float)));
        CUDA_CHECK(cudaMemcpy(s.dx, s.hx, (size_t)n_reduce * sizeof(float), cudaMemcpyHostToDevice));
        ok = reduce_section(&s) && ok;
        CUDA_CHECK(cudaFree(s.dx));
        CUDA_CHECK(cudaFree(s.dpartial));
        CUDA_CHECK(cudaFree(s.dtotal));
        free(s.hx);
        free(s.hpartial);
    }

    if (options_selects(&e->o, "jacobi")) {
        const size_t cells = (size_t)side * side;
        s.side = side;
        s.iters = iters;
        s.jgrid = side > 2 ? side - 2 : 1; /* a block per interior row */
        CUDA_CHECK(groups_coop_blocks(1, &s.jcoop_grid));
        s.hu0 = xmalloc(cells * sizeof(float));
        s.hwant = xmalloc(cells * sizeof(float));
        s.hgot = xmalloc(cells * sizeof(float));
        fill_uniform(s.hu0, cells, e->o.seed, 7);
        CUDA_CHECK(cudaMalloc((void **)&s.du0, cells * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&s.du, cells * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&s.dv2, cells * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(s.du0, s.hu0, cells * sizeof(float), cudaMemcpyHostToDevice));
        ok = jacobi_section(&s) && ok;
        CUDA_CHECK(cudaFree(s.du0));
        CUDA_CHECK(cudaFree(s.du));
        CUDA_CHECK(cudaFree(s.dv2));
        free(s.hu0);
        free(s.hwant);
        free(s.hgot);
    }
    return ok;
}
