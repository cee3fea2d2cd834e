/**
 * @file 06_clusters_dsmem/demos/cluster_demo.c
 * @brief Chapter 06's cluster demonstrations, host side: check the cluster
 *        launches, print the cluster occupancy, verify and time the
 *        reductions, the exchanges and the ping-pongs.
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../../common/matrix.h"
#include "cluster_demo.h"
#include "../kernel.h"

/* ------------------------------------------------------------ cluster launch */

/* out[3b..3b+2] must be: rank b % size, the size, and the block index of
 * the next block of the same cluster (read from its shared memory). */
static int check_ids(FILE *f, const char *how, const int *d_out, int blocks, int size)
{
    int *h = xmalloc((size_t)blocks * 3 * sizeof(int));
    int b, bad = 0;
    CUDA_CHECK(cudaMemcpy(h, d_out, (size_t)blocks * 3 * sizeof(int), cudaMemcpyDeviceToHost));
    for (b = 0; b < blocks; ++b) {
        const int rank = b % size, next = b - rank + (rank + 1) % size;
        bad += h[3 * b] != rank || h[3 * b + 1] != size || h[3 * b + 2] != next;
    }
    free(h);
    fprintf(f, "  %-44s %s  %d blocks, clusters of %d: rank, size and peer's shared memory %s\n", how,
            bad ? "FAILED" : "PASSED", blocks, size, bad ? "WRONG" : "as expected");
    return bad == 0;
}

static int launch_section(chapter_env *env)
{
    FILE *f = env->out;
    const int blocks = 64;
    int *d_out, ok = 1, i;
    const int sizes[] = {2, 8};
    char how[64];

    fprintf(f, "cluster launch (each block reads its next peer's shared memory through DSMEM):\n");
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)blocks * 3 * sizeof(int)));
    device_poison(d_out, (size_t)blocks * 3 * sizeof(int));
    CUDA_CHECK(launch_cluster_ids_static(d_out, blocks, 0));
    CUDA_CHECK(cudaDeviceSynchronize());
    snprintf(how, sizeof how, "__cluster_dims__(%d,1,1), <<<%d, 32>>>", cluster_static_size(), blocks);
    ok &= check_ids(f, how, d_out, blocks, cluster_static_size());
    for (i = 0; i < 2; ++i) {
        device_poison(d_out, (size_t)blocks * 3 * sizeof(int));
        CUDA_CHECK(launch_cluster_ids_runtime(d_out, blocks, sizes[i], 0));
        CUDA_CHECK(cudaDeviceSynchronize());
        snprintf(how, sizeof how, "cudaLaunchKernelEx, cluster attribute %d", sizes[i]);
        ok &= check_ids(f, how, d_out, blocks, sizes[i]);
    }
    /* The pitfall, on request: the grid must be a multiple of the cluster
     * size, and 6 blocks in clusters of 4 is refused (exit 4). */
    if (options_extra_value(&env->o, "bad-cluster-grid")) {
        fprintf(f, "  launching 6 blocks in clusters of 4 (not a multiple):\n");
        CUDA_CHECK(launch_cluster_ids_runtime(d_out, 6, 4, 0));
        CUDA_CHECK(cudaDeviceSynchronize());
        fprintf(f, "  ... the launch was accepted: FAILED\n");
        ok = 0;
    }
    CUDA_CHECK(cudaFree(d_out));
    return ok;
}

/* --------------------------------------------------------------- occupancy */

static void occupancy_section(chapter_env *env)
{
    FILE *f = env->out;
    const int sizes[] = {1, 2, 4, 8, 16};
    char gemm[48];
    int i;
    snprintf(gemm, sizeof gemm, "GEMM: %u thr, %zu KB smem", gemm_cluster_threads, (gemm_cluster_smem + 500) / 1000);
    fprintf(f, "\ncudaOccupancyMaxActiveClusters (%d SMs; 16 is a non-portable size, allowed per kernel):\n",
            env->dev.sms);
    fprintf(f, "  %-8s  %-34s  %-34s\n", "cluster", "reduction: 256 thr, no dyn. smem", gemm);
    for (i = 0; i < 5; ++i) {
        int a = 0, b = 0;
        char ca[48], cb[48];
        const cudaError_t ea = reduce_cluster_occupancy(sizes[i], &a);
        const cudaError_t eb = gemm_cluster_occupancy(sizes[i], &b);
        if (ea == cudaSuccess)
            snprintf(ca, sizeof ca, "%4d clusters = %5d blocks", a, a * sizes[i]);
        else
            snprintf(ca, sizeof ca, "refused: %s", cudaGetErrorName(ea));
        if (eb == cudaSuccess)
            snprintf(cb, sizeof cb, "%4d clusters = %5d blocks", b, b * sizes[i]);
        else
            snprintf(cb, sizeof cb, "refused: %s", cudaGetErrorName(eb));
        (void)cudaGetLastError();
        fprintf(f, "  %-8d  %-34s  %-34s\n", sizes[i], ca, cb);
    }
}

/* --------------------------------------------------------------- reduction */

typedef struct {
    const int *x;
    long n;
    unsigned long long *sum;
    int blocks, cluster; /* cluster 0: the global-atomics kernel */
    long long want;
    FILE *out;
} reduce_state;

static cudaError_t run_reduce(void *arg, cudaStream_t st)
{
    const reduce_state *r = arg;
    return r->cluster == 0 ? launch_reduce_global(r->x, r->n, r->sum, r->blocks, st)
                           : launch_reduce_dsmem(r->x, r->n, r->sum, r->blocks, r->cluster, st);
}

static void poison_sum(void *state) { device_poison(((reduce_state *)state)->sum, sizeof(unsigned long long)); }

/* Integer data: every order of additions gives the same sum, so the check is exact. */
static int check_sum(void *state, const char *name, const char *when)
{
    const reduce_state *r = state;
    unsigned long long got;
    CUDA_CHECK(cudaMemcpy(&got, r->sum, sizeof got, cudaMemcpyDeviceToHost));
    if ((long long)got == r->want) {
        fprintf(r->out, "  %-16s %-12s PASSED  sum = %lld (exact)\n", name, when, r->want);
        return 1;
    }
    fprintf(r->out, "  %-16s %-12s FAILED  sum = %lld, expected %lld\n", name, when, (long long)got, r->want);
    return 0;
}

static int reduce_section(chapter_env *env)
{
    const long n = options_extra_value(&env->o, "elements");
    const int clusters[] = {0, 2, 4, 8};
    const char *names[] = {"reduce_global", "reduce_dsmem_2", "reduce_dsmem_4", "reduce_dsmem_8"};
    float *u = xmalloc((size_t)n * sizeof *u);
    int *hx = xmalloc((size_t)n * sizeof *hx), *dx, i, ok = 1;
    reduce_state r;
    report_row rows[4];
    char knobs[4][80];

    memset(&r, 0, sizeof r);
    fill_uniform(u, (size_t)n, env->o.seed, 4);
    for (i = 0; i < n; ++i) {
        hx[i] = (int)(1000.0f * u[i]); /* -1000 .. 1000 */
        r.want += hx[i];
    }
    CUDA_CHECK(cudaMalloc((void **)&dx, (size_t)n * sizeof *dx));
    CUDA_CHECK(cudaMalloc((void **)&r.sum, sizeof *r.sum));
    CUDA_CHECK(cudaMemcpy(dx, hx, (size_t)n * sizeof *dx, cudaMemcpyHostToDevice));
    r.x = dx;
    r.n = n;
    r.out = env->out;
    r.blocks = 8 * env->dev.sms; /* a multiple of every cluster size used */

    fprintf(env->out, "\nreduction: sum of %ld ints, %d blocks x 256 threads, one atomic per warp (%d warps)\n",
            n, r.blocks, r.blocks * 8);
    for (i = 0; i < 4; ++i) {
        r.cluster = clusters[i];
        if (i == 0)
            snprintf(knobs[i], sizeof knobs[i], "global_atomics=%d", r.blocks * 8);
        else
            snprintf(knobs[i], sizeof knobs[i], "cluster=%d dsmem_atomics=%d global_atomics=%d", clusters[i],
                     r.blocks * 8, r.blocks / clusters[i]);
        run_checked(env, names[i], knobs[i], run_reduce, &r, poison_sum, check_sum, &r, &rows[i]);
        ok &= strcmp(rows[i].verified, "NO") != 0;
    }
    fprintf(env->out, "\n");
    report_demo_table(env->out, rows, 4, 1, "sum");
    env->ctx.m = 1;
    env->ctx.n = n;
    env->ctx.k = 0;
    chapter_emit(env, rows, 4);
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(r.sum));
    free(u);
    free(hx);
    return ok;
}

/* ----------------------------------------------------------------- exchange */

typedef struct {
    exchange_args a;
    int *herr, *hrounds;
    FILE *out;
} exchange_state;

static cudaError_t run_exchange(void *arg, cudaStream_t st) { return launch_exchange(&((exchange_state *)arg)->a, st); }

static void poison_exchange(void *state)
{
    const exchange_state *x = state;
    device_poison(x->a.errors, (size_t)x->a.blocks * sizeof(int));
    device_poison(x->a.rounds, (size_t)x->a.blocks * sizeof(int));
}

/* Every block ran every round and no thread saw a wrong element. */
static int check_exchange(void *state, const char *name, const char *when)
{
    const exchange_state *x = state;
    int b, bad = 0;
    CUDA_CHECK(cudaMemcpy(x->herr, x->a.errors, (size_t)x->a.blocks * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(x->hrounds, x->a.rounds, (size_t)x->a.blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (b = 0; b < x->a.blocks; ++b) bad += x->herr[b] != 0 || x->hrounds[b] != x->a.iters;
    fprintf(x->out, "  %-20s %-12s %s  %d blocks x %d rounds, every element of every message %s\n", name, when,
            bad ? "FAILED" : "PASSED", x->a.blocks, x->a.iters, bad ? "NOT as sent" : "as sent");
    return bad == 0;
}

static int exchange_section(chapter_env *env)
{
    exchange_state x;
    static const char *names[3] = {"exchange_dsmem", "exchange_dsmem_split", "exchange_global"};
    static const char *ways[3] = {"dsmem_store+cluster.sync", "dsmem_store+barrier_arrive/wait",
                                  "global_store+flag(release/acquire)"};
    static const int dsmem[3] = {1, 2, 0};
    report_row rows[3];
    char knobs[3][96];
    int i, ok = 1;
    const double msg_bytes = XCHG_FLOAT4S * 16.0;

    memset(&x, 0, sizeof x);
    x.out = env->out;
    x.a.blocks = env->dev.sms / 2 * 2;
    x.a.iters = (int)options_extra_value(&env->o, "rounds");
    x.a.divergent = (int)options_extra_value(&env->o, "divergent-cluster-sync");
    x.herr = xmalloc((size_t)x.a.blocks * sizeof(int));
    x.hrounds = xmalloc((size_t)x.a.blocks * sizeof(int));
    CUDA_CHECK(cudaMalloc((void **)&x.a.errors, (size_t)x.a.blocks * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&x.a.rounds, (size_t)x.a.blocks * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&x.a.flags, (size_t)x.a.blocks * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&x.a.mail, (size_t)x.a.blocks * 2 * XCHG_FLOAT4S * 16));

    fprintf(env->out, "\nexchange: %d blocks in pairs (clusters of 2), each sends its partner %.0f KB per round, %d rounds\n",
            x.a.blocks, msg_bytes / 1024, x.a.iters);
    if (x.a.divergent)
        fprintf(env->out, "--divergent-cluster-sync: warp 0 of block 0 skips the last round's cluster.sync(); "
                          "every thread of the cluster must reach it, so the others wait for it forever\n");
    for (i = 0; i < 3; ++i) {
        x.a.dsmem = dsmem[i];
        snprintf(knobs[i], sizeof knobs[i], "%s message_bytes=%.0f blocks=%d", ways[i], msg_bytes, x.a.blocks);
        run_checked(env, names[i], knobs[i], run_exchange, &x, poison_exchange, check_exchange, &x, &rows[i]);
        ok &= strcmp(rows[i].verified, "NO") != 0;
    }
    fprintf(env->out, "\n");
    report_demo_table(env->out, rows, 3, x.a.iters, "round");
    for (i = 0; i < 3; ++i)
        fprintf(env->out, "  %-20s %8.1f GB/s received in all (%.2f GB/s per block)\n", rows[i].kernel,
                msg_bytes * x.a.blocks * x.a.iters / (rows[i].t.median * 1e-3) / 1e9,
                msg_bytes * x.a.iters / (rows[i].t.median * 1e-3) / 1e9);
    env->ctx.m = x.a.iters;
    env->ctx.n = (long)msg_bytes * x.a.blocks; /* bytes received per round, all blocks */
    env->ctx.k = 0;
    chapter_emit(env, rows, 3);
    CUDA_CHECK(cudaFree(x.a.errors));
    CUDA_CHECK(cudaFree(x.a.rounds));
    CUDA_CHECK(cudaFree(x.a.flags));
    CUDA_CHECK(cudaFree(x.a.mail));
    free(x.herr);
    free(x.hrounds);
    return ok;
}

/* ---------------------------------------------------------------- ping-pong */

typedef struct {
    pingpong_args a;
    FILE *out;
} pingpong_state;

static cudaError_t run_pingpong(void *arg, cudaStream_t st) { return launch_pingpong(&((pingpong_state *)arg)->a, st); }
static void poison_seen(void *state) { device_poison(((pingpong_state *)state)->a.seen, 2 * sizeof(int)); }

static int check_pingpong(void *state, const char *name, const char *when)
{
    const pingpong_state *p = state;
    int seen[2];
    CUDA_CHECK(cudaMemcpy(seen, p->a.seen, sizeof seen, cudaMemcpyDeviceToHost));
    const int ok = seen[0] == p->a.iters && seen[1] == p->a.iters;
    fprintf(p->out, "  %-16s %-12s %s  both blocks saw %d of %d round trips\n", name, when,
            ok ? "PASSED" : "FAILED", seen[0] < seen[1] ? seen[0] : seen[1], p->a.iters);
    return ok;
}

static int pingpong_section(chapter_env *env)
{
    pingpong_state p;
    report_row rows[2];
    int i, ok = 1;
    memset(&p, 0, sizeof p);
    p.out = env->out;
    p.a.iters = (int)options_extra_value(&env->o, "pings");
    CUDA_CHECK(cudaMalloc((void **)&p.a.seen, 2 * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&p.a.flags, 2 * sizeof(int)));
    fprintf(env->out, "\nping-pong: one thread in each block of one cluster of 2 passes a counter back and forth %d times\n",
            p.a.iters);
    for (i = 0; i < 2; ++i) {
        p.a.dsmem = i == 0;
        run_checked(env, i == 0 ? "pingpong_dsmem" : "pingpong_global",
                    i == 0 ? "relaxed atomics in DSMEM" : "relaxed atomics in global memory", run_pingpong,
                    &p, poison_seen, check_pingpong, &p, &rows[i]);
        ok &= strcmp(rows[i].verified, "NO") != 0;
    }
    fprintf(env->out, "\n");
    report_demo_table(env->out, rows, 2, p.a.iters, "round_trip");
    env->ctx.m = p.a.iters;
    env->ctx.n = 2;
    env->ctx.k = 0;
    chapter_emit(env, rows, 2);
    CUDA_CHECK(cudaFree(p.a.seen));
    CUDA_CHECK(cudaFree(p.a.flags));
    return ok;
}

int cluster_demo(chapter_env *env)
{
    int ok = launch_section(env);
    occupancy_section(env);
    ok &= reduce_section(env);
    ok &= exchange_section(env);
    ok &= pingpong_section(env);
    fprintf(env->out, "\n");
    return ok ? EXIT_VERIFIED : EXIT_VERIFY_FAILED;
}
