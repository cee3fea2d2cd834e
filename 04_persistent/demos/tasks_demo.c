/**
 * @file 04_persistent/demos/tasks_demo.c
 * @brief Chapter 04's task-queue demonstration: make the tasks, run them
 *        four ways, check every output element, time each way.
 */
#include "tasks.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../../common/matrix.h"
#include "../../common/graph.h" /* graph_capture(), graph_run() */

#define MIN_LENGTH 512   /**< shortest segment */
#define MAX_LENGTH 16384 /**< longest segment (32x the shortest) */

/* What the checks need: the inputs, the fp64 reference, the outputs. */
typedef struct {
    task_args a;
    task_segment *segs;
    float *hx, *hy, *hnorms;
    double *want_norm;
    long total;
    FILE *out;
} task_state;

/* Segment lengths spread evenly on a log scale between MIN and MAX, from
 * the run's seed; so the biggest task is up to 32x the smallest. */
static long make_segments(task_segment *segs, int n, unsigned long long seed)
{
    float *u = xmalloc((size_t)n * sizeof *u);
    long off = 0;
    int i;
    fill_uniform(u, (size_t)n, seed, 3);
    for (i = 0; i < n; ++i) {
        const double f = 0.5 * (u[i] + 1.0); /* [0, 1] */
        segs[i].offset = (int)off;
        segs[i].length = (int)(MIN_LENGTH * pow((double)MAX_LENGTH / MIN_LENGTH, f));
        off += segs[i].length;
    }
    free(u);
    return off;
}

/* Every norm and every element of y against fp64. A sum of n non-negative
 * terms in float is within (n-1) * 2^-24 of the exact sum, relatively; the
 * kernel's sums are a per-thread sequential part (length/TASK_THREADS terms)
 * and a tree over the threads, so that bound with n = length/threads +
 * threads applies; the square root halves it, and the scaling adds 2 ulp. */
static int check_tasks(void *state, const char *name, const char *when)
{
    task_state *s = state;
    const double eps = ldexp(1.0, -24);
    long bad = 0, first = -1;
    int t, threads = task_threads();
    double worst = 0.0;
    CUDA_CHECK(cudaMemcpy(s->hy, s->a.y, (size_t)s->total * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(s->hnorms, s->a.norms, (size_t)s->a.ntasks * sizeof(float),
                          cudaMemcpyDeviceToHost));
    for (t = 0; t < s->a.ntasks; ++t) {
        const task_segment g = s->segs[t];
        const double terms = (double)g.length / threads + threads + 2;
        const double rel = 0.5 * terms * eps + 2 * eps;
        const double want = s->want_norm[t];
        double err = fabs((double)s->hnorms[t] - want) / want;
        int i;
        if (!(err <= rel)) {
            if (first < 0) first = t;
            ++bad;
        }
        if (err / rel > worst) worst = err / rel;
        for (i = 0; i < g.length; ++i) {
            const double wy = (double)s->hx[g.offset + i] / want;
            const double e = fabs((double)s->hy[g.offset + i] - wy);
            const double tol = (rel + 2 * eps) * fabs(wy) + 1e-30;
            if (!(e <= tol)) {
                if (first < 0) first = t;
                ++bad;
            }
            if (e / tol > worst) worst = e / tol;
        }
    }
    if (bad == 0) {
        fprintf(s->out, "  %-16s %-12s PASSED  %d norms and %ld elements, max err = %.3f tol\n", name,
                when, s->a.ntasks, s->total, worst);
        return 1;
    }
    fprintf(s->out, "  %-16s %-12s FAILED  %ld wrong values (norms and elements), first in task %ld\n",
            name, when, bad, first);
    return 0;
}

static void poison_outputs(void *state)
{
    const task_state *s = state;
    device_poison(s->a.y, (size_t)s->total * sizeof(float));
    device_poison(s->a.norms, (size_t)s->a.ntasks * sizeof(float));
}

static cudaError_t run_one_by_one(void *arg, cudaStream_t st) { return launch_tasks_one_by_one(arg, st); }
static cudaError_t run_batched(void *arg, cudaStream_t st) { return launch_tasks_batched(arg, st); }
static cudaError_t run_persistent(void *arg, cudaStream_t st) { return launch_tasks_persistent(arg, st); }

/* The empty-kernel rows: launch cost alone, no work to check. */
static int empty_count;
static cudaError_t run_empty(void *arg, cudaStream_t st)
{
    (void)arg;
    return launch_empty_kernels(empty_count, st);
}

int tasks_demo(chapter_env *env)
{
    const options *o = &env->o;
    task_state s;
    report_row rows[4], empty[2];
    char knobs[4][96], eknobs[2][64];
    cudaGraphExec_t graph, empty_graph;
    double capture_ms, empty_capture_ms;
    int i, all_ok = 1, per_sm;
    const int threads = task_threads();

    memset(&s, 0, sizeof s);
    s.out = env->out;
    s.a.ntasks = (int)options_extra_value(o, "tasks");
    s.a.skip_reset = (int)options_extra_value(o, "skip-reset");
    s.segs = xmalloc((size_t)s.a.ntasks * sizeof *s.segs);
    s.total = make_segments(s.segs, s.a.ntasks, o->seed);
    s.hx = xmalloc((size_t)s.total * sizeof(float));
    s.hy = xmalloc((size_t)s.total * sizeof(float));
    s.hnorms = xmalloc((size_t)s.a.ntasks * sizeof(float));
    s.want_norm = xmalloc((size_t)s.a.ntasks * sizeof(double));
    fill_uniform(s.hx, (size_t)s.total, o->seed, 2);
    for (i = 0; i < s.a.ntasks; ++i) {
        double ss = 0.0;
        int j;
        for (j = 0; j < s.segs[i].length; ++j)
            ss += (double)s.hx[s.segs[i].offset + j] * s.hx[s.segs[i].offset + j];
        s.want_norm[i] = sqrt(ss);
    }

    CUDA_CHECK(cudaMalloc((void **)&s.a.tasks, (size_t)s.a.ntasks * sizeof(task_segment)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.x, (size_t)s.total * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.y, (size_t)s.total * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.norms, (size_t)s.a.ntasks * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.next, sizeof(int)));
    CUDA_CHECK(cudaMemset(s.a.next, 0, sizeof(int)));
    CUDA_CHECK(cudaMemcpy((void *)s.a.tasks, s.segs, (size_t)s.a.ntasks * sizeof(task_segment),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy((void *)s.a.x, s.hx, (size_t)s.total * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(persistent_task_grid(&s.a.grid));
    per_sm = s.a.grid / env->dev.sms;

    fprintf(env->out, "tasks    : %d segments of %d to %d floats (%ld in all), each scaled to unit norm by one block of %d threads\n",
            s.a.ntasks, MIN_LENGTH, MAX_LENGTH, s.total, threads);
    fprintf(env->out, "timing   : %d warm-up + %d timed runs of all the tasks per way, CUDA events\n",
            o->warmup, o->reps);

    graph = graph_capture(run_one_by_one, &s.a, &capture_ms);
    snprintf(knobs[0], sizeof knobs[0], "launches=%d", s.a.ntasks);
    snprintf(knobs[1], sizeof knobs[1], "graph_nodes=%d capture_ms=%.2f", s.a.ntasks, capture_ms);
    snprintf(knobs[2], sizeof knobs[2], "launches=1 blocks=%d", s.a.ntasks);
    snprintf(knobs[3], sizeof knobs[3], "launches=1 blocks=%d (%d/SM)%s", s.a.grid, per_sm,
             s.a.skip_reset ? " counter_NOT_reset" : "");
    run_checked(env, "tasks_one_by_one", knobs[0], run_one_by_one, &s.a, poison_outputs, check_tasks, &s, &rows[0]);
    run_checked(env, "tasks_graph", knobs[1], graph_run, &graph, poison_outputs, check_tasks, &s, &rows[1]);
    run_checked(env, "tasks_batched", knobs[2], run_batched, &s.a, poison_outputs, check_tasks, &s, &rows[2]);
    run_checked(env, "tasks_persistent", knobs[3], run_persistent, &s.a, poison_outputs, check_tasks, &s, &rows[3]);
    for (i = 0; i < 4; ++i) all_ok = all_ok && strcmp(rows[i].verified, "NO") != 0;
    fprintf(env->out, "\n");
    report_demo_table(env->out, rows, 4, s.a.ntasks, "task");

    /* The launch cost alone: the same number of launches with no work. */
    empty_count = s.a.ntasks;
    empty_graph = graph_capture(run_empty, NULL, &empty_capture_ms);
    snprintf(eknobs[0], sizeof eknobs[0], "launches=%d", empty_count);
    snprintf(eknobs[1], sizeof eknobs[1], "graph_nodes=%d", empty_count);
    run_checked(env, "empty_one_by_one", eknobs[0], run_empty, NULL, NULL, NULL, NULL, &empty[0]);
    run_checked(env, "empty_graph", eknobs[1], graph_run, &empty_graph, NULL, NULL, NULL, &empty[1]);
    fprintf(env->out, "\nlaunch cost alone (empty kernels, nothing to verify):\n");
    report_demo_table(env->out, empty, 2, empty_count, "launch");
    fprintf(env->out, "\n");

    env->ctx.m = s.a.ntasks;
    env->ctx.n = s.total;
    env->ctx.k = 0;
    chapter_emit(env, rows, 4);
    chapter_emit(env, empty, 2);

    CUDA_CHECK(cudaGraphExecDestroy(graph));
    CUDA_CHECK(cudaGraphExecDestroy(empty_graph));
    CUDA_CHECK(cudaFree((void *)s.a.tasks));
    CUDA_CHECK(cudaFree((void *)s.a.x));
    CUDA_CHECK(cudaFree(s.a.y));
    CUDA_CHECK(cudaFree(s.a.norms));
    CUDA_CHECK(cudaFree(s.a.next));
    free(s.segs);
    free(s.hx);
    free(s.hy);
    free(s.hnorms);
    free(s.want_norm);
    return all_ok ? EXIT_VERIFIED : EXIT_VERIFY_FAILED;
}
