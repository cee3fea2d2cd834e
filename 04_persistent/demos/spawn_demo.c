/**
 * @file 04_persistent/demos/spawn_demo.c
 * @brief Chapter 04's tasks-that-create-tasks demonstration: build the
 *        tree on the host (the expected result of every task), run it the
 *        three ways of spawn.cu (and the device-side levels as a graph),
 *        check every task's result, time each way.
 */
#include "spawn.h"

#include <stdlib.h>
#include <string.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../../common/matrix.h"
#include "../../common/graph.h" /* graph_capture(), graph_run() */

/* What the checks need. */
typedef struct {
    spawn_args a;
    spawn_out *want, *got;
    long total;  /* tasks in the tree */
    int depth;   /* its depth (deepest node) */
    FILE *out;
} spawn_state;

static int by_key(const void *p, const void *q)
{
    const spawn_out *x = p, *y = q;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->result < y->result ? -1 : x->result > y->result;
}

/* Grow *p (of *cap elements of @p size) to hold at least @p need. */
static void *grow(void *p, long *cap, long need, size_t size)
{
    if (need <= *cap) return p;
    while (*cap < need) *cap = *cap * 2 + 1024;
    p = realloc(p, (size_t)*cap * size);
    if (p == NULL) {
        fprintf(stderr, "spawn: out of host memory\n");
        exit(EXIT_UNSUPPORTED);
    }
    return p;
}

/* The tree, breadth first, with every task's expected result (sorted by key). */
static long build_tree(spawn_state *s, const spawn_node *roots, int nroots, int max_depth)
{
    long cap_level = nroots, cap_next = 0, cap_want = 0, n = nroots, total = 0, i;
    spawn_node *level = xmalloc((size_t)nroots * sizeof *level), *next = NULL, *tmp;
    int j;
    memcpy(level, roots, (size_t)nroots * sizeof *level);
    s->want = NULL;
    s->depth = 0;
    while (n > 0) {
        long m = 0;
        s->want = grow(s->want, &cap_want, total + n, sizeof *s->want);
        next = grow(next, &cap_next, 2 * n, sizeof *next);
        for (i = 0; i < n; ++i) {
            const int kids = spawn_children(level[i].key, level[i].depth, max_depth);
            s->want[total].key = level[i].key;
            s->want[total].result = spawn_work(level[i].key);
            ++total;
            for (j = 0; j < kids; ++j) {
                next[m].key = spawn_child_key(level[i].key, j);
                next[m].depth = level[i].depth + 1;
                next[m].pad = 0;
                ++m;
            }
            if (level[i].depth > s->depth) s->depth = level[i].depth;
        }
        tmp = level, level = next, next = tmp; /* the next depth becomes this one */
        i = cap_level, cap_level = cap_next, cap_next = i;
        n = m;
    }
    free(level);
    free(next);
    qsort(s->want, (size_t)total, sizeof *s->want, by_key);
    return total;
}

static void poison_spawn(void *state)
{
    const spawn_state *s = state;
    device_poison(s->a.out, (size_t)s->total * sizeof(spawn_out));
}

/* Every task ran exactly once with the right result: the device's list,
 * sorted, equals the host's, entry by entry. */
static int check_spawn(void *state, const char *name, const char *when)
{
    spawn_state *s = state;
    int count, overflow;
    spawn_counters c;
    long i, bad = 0;
    CUDA_CHECK(cudaMemcpy(&count, s->a.out_count, sizeof count, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&c, s->a.counters, sizeof c, cudaMemcpyDeviceToHost));
    overflow = c.overflow;
    if (count != s->total || overflow) {
        fprintf(s->out, "  %-20s %-12s FAILED  %d tasks ran, the tree has %ld%s\n", name, when, count, s->total,
                overflow ? " (the queue overflowed)" : "");
        return 0;
    }
    CUDA_CHECK(cudaMemcpy(s->got, s->a.out, (size_t)count * sizeof(spawn_out), cudaMemcpyDeviceToHost));
    qsort(s->got, (size_t)count, sizeof *s->got, by_key);
    for (i = 0; i < s->total; ++i) bad += memcmp(&s->got[i], &s->want[i], sizeof(spawn_out)) != 0;
    if (bad == 0) {
        fprintf(s->out, "  %-20s %-12s PASSED  %ld tasks, each run once, every result as the host's\n", name, when,
                s->total);
        return 1;
    }
    fprintf(s->out, "  %-20s %-12s FAILED  %ld of %ld tasks missing, repeated or wrong\n", name, when, bad, s->total);
    return 0;
}

static cudaError_t run_queue(void *arg, cudaStream_t st) { return launch_spawn_queue(arg, st); }
static cudaError_t run_levels_host(void *arg, cudaStream_t st) { return launch_spawn_levels_host(arg, st); }
static cudaError_t run_levels_device(void *arg, cudaStream_t st) { return launch_spawn_levels_device(arg, st); }

int spawn_demo(chapter_env *env)
{
    const options *o = &env->o;
    spawn_state s;
    report_row rows[4];
    char knobs[4][96];
    spawn_node *hroots;
    cudaGraphExec_t graph;
    double capture_ms;
    const int nroots = (int)options_extra_value(o, "spawn-roots");
    const int max_depth = (int)options_extra_value(o, "spawn-depth");
    int i, ok = 1;

    memset(&s, 0, sizeof s);
    s.out = env->out;
    hroots = xmalloc((size_t)nroots * sizeof *hroots);
    for (i = 0; i < nroots; ++i) {
        hroots[i].key = spawn_mix(o->seed * 1000003ull + (unsigned long long)i);
        hroots[i].depth = 0;
        hroots[i].pad = 0;
    }
    s.total = build_tree(&s, hroots, nroots, max_depth); /* the device's queue gets exactly this many slots */
    s.got = xmalloc((size_t)s.total * sizeof *s.got);

    s.a.nroots = nroots;
    s.a.max_depth = max_depth;
    s.a.capacity = (int)s.total;
    CUDA_CHECK(spawn_queue_grid(&s.a.grid));
    CUDA_CHECK(cudaMalloc((void **)&s.a.roots, (size_t)nroots * sizeof(spawn_node)));
    CUDA_CHECK(cudaMemcpy((void *)s.a.roots, hroots, (size_t)nroots * sizeof(spawn_node), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMalloc((void **)&s.a.nodes, 2 * (size_t)s.total * sizeof(spawn_node)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.ready, ((size_t)s.total + (size_t)s.a.grid * spawn_threads()) * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.counters, sizeof(spawn_counters)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.level_count, (size_t)(max_depth + 2) * sizeof(int)));
    CUDA_CHECK(cudaMallocHost((void **)&s.a.level_count_host, sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.out, (size_t)s.total * sizeof(spawn_out)));
    CUDA_CHECK(cudaMalloc((void **)&s.a.out_count, sizeof(int)));

    fprintf(env->out, "\nspawn    : tasks that create tasks: %d roots, each task 0, 1 or 2 children (1 on average), "
                      "no children at depth %d:\n           %ld tasks in all, %d deep; each task 32-511 rounds of "
                      "work; one thread per task\n",
            nroots, max_depth, s.total, s.depth);
    graph = graph_capture(run_levels_device, &s.a, &capture_ms);
    snprintf(knobs[0], sizeof knobs[0], "launches=%d host_syncs=%d", s.depth + 2, s.depth + 1);
    snprintf(knobs[1], sizeof knobs[1], "launches=%d", max_depth + 2);
    snprintf(knobs[2], sizeof knobs[2], "graph_nodes=%d capture_ms=%.2f", max_depth + 2, capture_ms);
    snprintf(knobs[3], sizeof knobs[3], "launches=2 blocks=%d threads=%d", s.a.grid, spawn_threads());
    run_checked(env, "spawn_levels_host", knobs[0], run_levels_host, &s.a, poison_spawn, check_spawn, &s, &rows[0]);
    run_checked(env, "spawn_levels_device", knobs[1], run_levels_device, &s.a, poison_spawn, check_spawn, &s,
                &rows[1]);
    run_checked(env, "spawn_levels_graph", knobs[2], graph_run, &graph, poison_spawn, check_spawn, &s, &rows[2]);
    run_checked(env, "spawn_queue", knobs[3], run_queue, &s.a, poison_spawn, check_spawn, &s, &rows[3]);
    CUDA_CHECK(cudaGraphExecDestroy(graph));
    for (i = 0; i < 4; ++i) ok = ok && strcmp(rows[i].verified, "NO") != 0;
    fprintf(env->out, "\n");
    report_demo_table(env->out, rows, 4, s.total, "task");
    env->ctx.m = s.total;
    env->ctx.n = nroots;
    env->ctx.k = max_depth;
    chapter_emit(env, rows, 4);

    CUDA_CHECK(cudaFree((void *)s.a.roots));
    CUDA_CHECK(cudaFree(s.a.nodes));
    CUDA_CHECK(cudaFree(s.a.ready));
    CUDA_CHECK(cudaFree(s.a.counters));
    CUDA_CHECK(cudaFree(s.a.level_count));
    CUDA_CHECK(cudaFreeHost(s.a.level_count_host));
    CUDA_CHECK(cudaFree(s.a.out));
    CUDA_CHECK(cudaFree(s.a.out_count));
    free(hroots);
    free(s.want);
    free(s.got);
    return ok ? EXIT_VERIFIED : EXIT_VERIFY_FAILED;
}
