/**
 * @file gemm_driver.c
 * @brief Verification, timing and reporting for the GEMM chapters (see gemm_driver.h).
 */
#include "gemm_driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "device.h"
#include "dump.h"
#include "matrix.h"
#include "nvtx.h"
#include "options.h"
#include "report.h"
#include "runner.h"
#include "stats.h"
#include "trace.h"
#include "verify.h"
#include "watchdog.h"

#if !defined(TUTORIAL_SMEM_PER_BLOCK) || !defined(TUTORIAL_TOO_BIG)
#error "build gemm_driver.c through common/common.mk: it passes the chapter's SMEM_PER_BLOCK and TOO_BIG lists"
#endif

#define MAX_ROWS 16            /**< most rows one table can have */
#define FP64_RANDOM_SAMPLES 64 /**< random entries checked in fp64, besides corners and edges */

/* Row-major C = A * B is column-major C^T = B^T * A^T, so cuBLAS gets the
 * operands swapped and no transposes. */
static void cublas_gemm(cublasHandle_t h, cublasComputeType_t compute, int M, int N, int K,
                        const float *A, const float *B, float *C)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_32F, N, A,
                              CUDA_R_32F, K, &zero, C, CUDA_R_32F, N, compute, CUBLAS_GEMM_DEFAULT));
}

/* The same with BF16 A and B: the tensor cores, FP32 accumulation and output. */
static void cublas_gemm_bf16(cublasHandle_t h, int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C)
{
    const float one = 1.0f, zero = 0.0f;
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, CUDA_R_16BF, N, A,
                              CUDA_R_16BF, K, &zero, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* The timed cuBLAS rows: plain FP32 (CUBLAS_COMPUTE_32F never uses TF32), and BF16. */
static cublasHandle_t timed_handle;

static cudaError_t launch_cublas(int M, int N, int K, const float *A, const float *B, float *C,
                                 cudaStream_t stream)
{
    CUBLAS_CHECK(cublasSetStream(timed_handle, stream));
    cublas_gemm(timed_handle, CUBLAS_COMPUTE_32F, M, N, K, A, B, C);
    return cudaGetLastError();
}

static cudaError_t launch_cublas_bf16(int M, int N, int K, const uint16_t *A, const uint16_t *B, float *C,
                                      cudaStream_t stream)
{
    CUBLAS_CHECK(cublasSetStream(timed_handle, stream));
    cublas_gemm_bf16(timed_handle, M, N, K, A, B, C);
    return cudaGetLastError();
}

/* Everything one run needs, so the helpers below take one argument. */
typedef struct {
    chapter_env *env;
    const options *o;
    FILE *out;               /* the human report: stdout, or stderr under --csv/--json */
    int tc;                  /* 1: the tensor-core line (BF16 inputs) */
    int M, N, K;
    size_t bytes_c;
    float *hA, *hB;          /* the inputs as the checks see them (for tc: rounded to BF16) */
    float *hGot, *hWant, *hAbs;
    float *dA, *dB, *dC;     /* dA, dB: FP32 line only */
    uint16_t *dA16, *dB16;   /* tensor-core line only: the BF16 inputs */
} run_state;

/* A kernel's knobs as printed: KNOB() (common/launch.cuh) starts each with a space. */
static const char *knobs_of(const gemm_kernel *k) { return k->knobs + strspn(k->knobs, " "); }

/* Copy C back and compare every element with the reference; also check the
 * sampled entries against fp64 directly. Returns 1 when correct. */
static int check_output(run_state *s, const char *name, const char *when)
{
    compare_result c;
    sample_result sr;
    CUDA_CHECK(cudaMemcpy(s->hGot, s->dC, s->bytes_c, cudaMemcpyDeviceToHost));
    compare_gemm(s->hGot, s->hWant, s->hAbs, s->M, s->N, s->K, &c);
    sample_check_fp64(s->hA, s->hB, s->hGot, s->M, s->N, s->K, s->o->seed + 7, FP64_RANDOM_SAMPLES, &sr);
    if (compare_passed(&c) && sr.bad == 0) {
        fprintf(s->out, "  %-8s %-12s PASSED  max|err| %.2e = %.4f tol, rel.Frobenius %.1e, fp64 samples %d/%d\n",
                name, when, c.max_abs_err, c.max_err_over_tol, c.rel_fro, sr.samples, sr.samples);
        return 1;
    }
    fprintf(s->out, "  %-8s %-12s FAILED  %ld of %ld elements wrong (%ld NaN/Inf)", name, when,
            c.bad, c.checked, c.nonfinite);
    if (c.bad > 0)
        fprintf(s->out, "; first at (%ld,%ld): got %.6g, want %.6g", c.first_row, c.first_col,
                (double)c.first_got, (double)c.first_want);
    if (sr.bad > 0)
        fprintf(s->out, "; %d of %d fp64 samples wrong, first at (%ld,%ld)", sr.bad, sr.samples,
                sr.first_row, sr.first_col);
    fprintf(s->out, "\n");
    return 0;
}

/* time_runs() takes one function and one argument. */
typedef struct {
    const gemm_kernel *k;
    run_state *s;
} timed_gemm;

static cudaError_t run_gemm(void *arg, cudaStream_t stream)
{
    const timed_gemm *g = arg;
    const run_state *s = g->s;
    if (g->k->launch_tc) return g->k->launch_tc(s->M, s->N, s->K, s->dA16, s->dB16, s->dC, stream);
    return g->k->launch(s->M, s->N, s->K, s->dA, s->dB, s->dC, stream);
}

static void poison_c(const run_state *s)
{
    device_poison(s->dC, s->bytes_c);
}

/* Whether @p name is a word of the space-separated @p words. */
static int is_word_of(const char *name, const char *words)
{
    const size_t len = strlen(name);
    while (*words) {
        const size_t l = strcspn(words, " ");
        if (l == len && strncmp(words, name, len) == 0) return 1;
        words += l + (words[l] == ' ');
    }
    return 0;
}

/* The launcher of @p k refused it: its block needs more shared memory than
 * this GPU allows (smem_opt_in). A kernel the chapter declares too big for
 * a part of this size (TOO_BIG_<class> in its Makefile) is left out, with a
 * line that says why: returns 1. Any other shortfall is a build for a
 * larger part, or knobs set too high: exit 3, naming the settings that fit.
 * Returns 0 when the refusal was no shortfall (a real CUDA error). */
static int left_out(const gemm_kernel *k, const run_state *s)
{
    const device_info *d = &s->env->dev;
    size_t need, limit;
    if (!smem_shortfall(&need, &limit)) return 0;
    if (limit >= (size_t)TUTORIAL_SMEM_PER_BLOCK && is_word_of(k->name, TUTORIAL_TOO_BIG)) {
        fprintf(s->out, "'%s' not run: its block asks for %zu B of shared memory and this GPU allows %zu; "
                        "no setting of this chapter fits it there (make smem lists each kernel's need)\n",
                k->name, need, limit);
        return 1;
    }
    fprintf(stderr, "'%s' asks for %zu B of shared memory per block; this GPU allows %zu.\n", k->name, need, limit);
    if (limit < (size_t)TUTORIAL_SMEM_PER_BLOCK && s->o->smem_limit > 0)
        fprintf(stderr, "This build has the settings of a GPU that allows %d B. Build the settings for %zu B: "
                        "make clean && make SMEM_PER_BLOCK=%zu\n", TUTORIAL_SMEM_PER_BLOCK, limit, limit);
    else if (limit < (size_t)TUTORIAL_SMEM_PER_BLOCK)
        fprintf(stderr, "This build (%s) has the settings of a GPU that allows %d B. Build the settings for this "
                        "one: make clean && make ARCH=sm_%d%d%s (make help lists them)\n",
                TUTORIAL_ARCH, TUTORIAL_SMEM_PER_BLOCK, d->major, d->minor, d->major == 9 ? "a" : "");
    else
        fprintf(stderr, "Its knobs (%s) need more than that: the chapter's defaults fit "
                        "(make help lists them, make smem each kernel's need).\n", knobs_of(k));
    exit(EXIT_UNSUPPORTED);
}

/* The row of --check-dump: what another run of @p k wrote with --dump,
 * checked as its first run would be; nothing is launched or timed. */
static int check_dumped(const gemm_kernel *k, run_state *s, report_row *row)
{
    char why[4400];
    int ok;
    poison_c(s);
    ok = dump_load(s->o->check_dump, k->name, 0, s->dC, s->bytes_c, why, sizeof why);
    if (ok) ok = check_output(s, k->name, "dumped run");
    else fprintf(s->out, "  %-8s %-12s FAILED  %s\n", k->name, "dumped run", why);
    memset(row, 0, sizeof *row);
    row->kernel = k->name;
    row->knobs = knobs_of(k);
    row->tflops = row->pct_cublas = row->speedup_prev = -1.0;
    row->verified = ok ? "yes" : "NO";
    return 1;
}

/* One table row, under the watchdog: run once on a poisoned C and check
 * every element; time it; check what the timed runs left in C (poisoned
 * again first, so a stale result cannot pass). Returns 0, and fills no
 * row, for a kernel left out on this GPU (left_out()). The first run is
 * made with --no-verify too, so that a refused launch is reported here. */
static int run_kernel(const gemm_kernel *k, run_state *s, report_row *row)
{
    timed_gemm g = {k, s};
    char phase[96];
    int ok = 1;
    cudaError_t err;
    snprintf(phase, sizeof phase, "%s: verify and time", k->name);
    if (s->o->check_dump != NULL) return check_dumped(k, s, row);
    NVTX_PUSH(phase);
    watchdog_arm(s->o->timeout_s, phase);
    if (s->o->verify) poison_c(s);
    err = run_gemm(&g, 0);
    if (err == cudaErrorNotSupported && left_out(k, s)) {
        watchdog_disarm();
        NVTX_POP();
        return 0;
    }
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "'%s': first run failed: %s (%s)\n", k->name, cudaGetErrorString(err),
                cudaGetErrorName(err));
        exit(EXIT_CUDA_ERROR);
    }
    if (s->o->dump != NULL && !dump_write(s->o->dump, k->name, 0, s->dC, s->bytes_c)) exit(EXIT_USAGE);
    if (s->o->verify) {
        ok = check_output(s, k->name, "first run");
        poison_c(s);
    }
    time_runs(k->name, run_gemm, &g, s->o->warmup, s->o->reps, &row->t);
    if (s->o->verify) ok = check_output(s, k->name, "after timing") && ok;
    if (trace_active()) { /* --trace: one more run, traced, and checked as well */
        cudaError_t err;
        if (s->o->verify) poison_c(s);
        err = trace_run(k->name, run_gemm, &g, row->t.median);
        if (err != cudaSuccess) {
            fprintf(stderr, "'%s': traced run failed: %s (%s)\n", k->name, cudaGetErrorString(err),
                    cudaGetErrorName(err));
            exit(EXIT_CUDA_ERROR);
        }
        if (s->o->verify) ok = check_output(s, k->name, "traced run") && ok;
    }
    watchdog_disarm();
    NVTX_POP();
    row->kernel = k->name;
    row->knobs = knobs_of(k);
    row->tflops = gemm_tflops(s->M, s->N, s->K, row->t.median);
    row->pct_cublas = -1.0;
    row->speedup_prev = -1.0;
    row->verified = !s->o->verify ? "skipped" : ok ? "yes" : "NO";
    return 1;
}

/* The reference and |A||B| (for the per-element tolerance): cuBLAS in
 * pedantic FP32, or for the tensor-core line cuBLAS on the BF16 inputs with
 * FP32 accumulation; |A||B| from the inputs as FP32 (exact for BF16 ones).
 * The reference is then checked against fp64 on sampled entries. The
 * tolerance is the FP32 line's (verify.h): BF16 products are exact in FP32,
 * so only the FP32 accumulation rounds, as on the FP32 line. */
static int make_reference(run_state *s, cublasHandle_t ref)
{
    size_t nA = (size_t)s->M * s->K, nB = (size_t)s->K * s->N, i;
    float *absA = xmalloc(nA * sizeof *absA), *absB = xmalloc(nB * sizeof *absB);
    float *dAbsA, *dAbsB;
    sample_result sr;
    NVTX_PUSH("reference");
    watchdog_arm(s->o->timeout_s, "cuBLAS reference");
    if (s->tc) cublas_gemm_bf16(ref, s->M, s->N, s->K, s->dA16, s->dB16, s->dC);
    else cublas_gemm(ref, CUBLAS_COMPUTE_32F_PEDANTIC, s->M, s->N, s->K, s->dA, s->dB, s->dC);
    CUDA_CHECK(cudaMemcpy(s->hWant, s->dC, s->bytes_c, cudaMemcpyDeviceToHost));
    for (i = 0; i < nA; ++i) absA[i] = fabsf(s->hA[i]);
    for (i = 0; i < nB; ++i) absB[i] = fabsf(s->hB[i]);
    CUDA_CHECK(cudaMalloc((void **)&dAbsA, nA * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&dAbsB, nB * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dAbsA, absA, nA * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dAbsB, absB, nB * sizeof(float), cudaMemcpyHostToDevice));
    cublas_gemm(ref, CUBLAS_COMPUTE_32F_PEDANTIC, s->M, s->N, s->K, dAbsA, dAbsB, s->dC);
    CUDA_CHECK(cudaMemcpy(s->hAbs, s->dC, s->bytes_c, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(dAbsA));
    CUDA_CHECK(cudaFree(dAbsB));
    free(absA);
    free(absB);
    sample_check_fp64(s->hA, s->hB, s->hWant, s->M, s->N, s->K, s->o->seed, FP64_RANDOM_SAMPLES, &sr);
    watchdog_disarm();
    NVTX_POP();
    fprintf(s->out, "reference: %s; fp64 check of %d sampled entries: %s (max err = %.4f tol)\n",
            s->tc ? "cuBLAS BF16 in, FP32 accumulate and out (CUBLAS_COMPUTE_32F, tensor cores)"
                  : "cuBLAS FP32, CUBLAS_COMPUTE_32F_PEDANTIC (no TF32)",
            sr.samples, sr.bad ? "FAILED" : "ok", sr.max_err_over_tol);
    return sr.bad == 0;
}

/* What --only may name: the kernels, cuBLAS and the demonstration. */
static void list_names(const gemm_chapter *ch, char *buf, size_t len)
{
    int i, tc = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (i = 0; i < ch->count && used < len; ++i) {
        used += (size_t)snprintf(buf + used, len - used, "%s ", ch->kernels[i].name);
        tc = tc || ch->kernels[i].launch_tc != NULL;
    }
    if (used < len)
        snprintf(buf + used, len - used, "cublas%s%s%s", tc ? " cublas_bf16" : "", ch->demo_name ? " " : "",
                 ch->demo_name ? ch->demo_name : "");
}

/* The tensor-core line's MMA instruction, as the build chose it (TC_MMA, common.mk). */
static const char *tc_mma_line(void)
{
#ifdef TUTORIAL_TC
    if (strcmp(TUTORIAL_TC_MMA, "wgmma") == 0)
        return "wgmma.mma_async m64nNk16 (a warpgroup, operands in shared memory), TC_MMA=wgmma";
    return "mma.sync m16n8k16 fed by ldmatrix (a warp, operands in registers), TC_MMA=mma_sync";
#else
    return "none";
#endif
}

/* One line's table: the FP32 kernels and cuBLAS, or (tc) the tensor-core
 * kernels and cuBLAS BF16, on the same seeded inputs (rounded to BF16 for
 * tc). Returns 1 when every result was right; exits on errors. */
static int gemm_section(chapter_env *env, const gemm_chapter *ch, int tc)
{
    const options *o = &env->o;
    run_state s;
    cublasHandle_t ref_handle;
    report_row rows[MAX_ROWS];
    gemm_kernel cublas_row = {"cublas", launch_cublas, "FP32 CUBLAS_COMPUTE_32F (no TF32)", NULL};
    gemm_kernel cublas_bf16_row = {"cublas_bf16", NULL, "BF16 in FP32 out CUBLAS_COMPUTE_32F", launch_cublas_bf16};
    const gemm_kernel *yardstick = tc ? &cublas_bf16_row : &cublas_row;
    size_t nA, nB;
    int nrows = 0, i, all_ok = 1, cublas_at = -1;

    memset(&s, 0, sizeof s);
    s.env = env;
    s.o = o;
    s.out = env->out;
    s.tc = tc;
    s.M = (int)o->m;
    s.N = (int)o->n;
    s.K = (int)o->k;
    s.bytes_c = (size_t)s.M * s.N * sizeof(float);
    nA = (size_t)s.M * s.K;
    nB = (size_t)s.K * s.N;

    if (tc)
        fprintf(s.out, "\ntensor cores: C[%dx%d] (FP32) = A[%dx%d] * B[%dx%d], A and B BF16 (the same inputs rounded to "
                       "nearest), FP32 accumulation, row-major\nMMA      : %s\n",
                s.M, s.N, s.M, s.K, s.K, s.N, tc_mma_line());
    else
        fprintf(s.out, "problem  : C[%dx%d] = A[%dx%d] * B[%dx%d], FP32, row-major, inputs uniform[-1,1] seed %llu\n",
                s.M, s.N, s.M, s.K, s.K, s.N, o->seed);
    if (!tc)
        fprintf(s.out, "timing   : %d warm-up + %d timed runs per kernel, CUDA events, median (min, max)\n",
                o->warmup, o->reps);

    s.hA = xmalloc(nA * sizeof(float));
    s.hB = xmalloc(nB * sizeof(float));
    s.hGot = xmalloc(s.bytes_c);
    s.hWant = xmalloc(s.bytes_c);
    s.hAbs = xmalloc(s.bytes_c);
    fill_uniform(s.hA, nA, o->seed, 0);
    fill_uniform(s.hB, nB, o->seed, 1);
    CUDA_CHECK(cudaMalloc((void **)&s.dC, s.bytes_c));
    if (tc) {
        uint16_t *bits = xmalloc((nA > nB ? nA : nB) * sizeof *bits);
        round_to_bf16(s.hA, nA, bits, s.hA);
        CUDA_CHECK(cudaMalloc((void **)&s.dA16, nA * sizeof *bits));
        CUDA_CHECK(cudaMemcpy(s.dA16, bits, nA * sizeof *bits, cudaMemcpyHostToDevice));
        round_to_bf16(s.hB, nB, bits, s.hB);
        CUDA_CHECK(cudaMalloc((void **)&s.dB16, nB * sizeof *bits));
        CUDA_CHECK(cudaMemcpy(s.dB16, bits, nB * sizeof *bits, cudaMemcpyHostToDevice));
        free(bits);
    } else {
        CUDA_CHECK(cudaMalloc((void **)&s.dA, nA * sizeof(float)));
        CUDA_CHECK(cudaMalloc((void **)&s.dB, nB * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(s.dA, s.hA, nA * sizeof(float), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(s.dB, s.hB, nB * sizeof(float), cudaMemcpyHostToDevice));
    }
    CUBLAS_CHECK(cublasCreate(&ref_handle));
    CUBLAS_CHECK(cublasCreate(&timed_handle));

    if (o->verify && !make_reference(&s, ref_handle)) {
        fprintf(s.out, "FAILED: the cuBLAS reference disagrees with fp64 on sampled entries\n");
        exit(EXIT_VERIFY_FAILED);
    }

    for (i = 0; i < ch->count; ++i) {
        const gemm_kernel *k = &ch->kernels[i];
        if ((k->launch_tc != NULL) != tc || !options_selects(o, k->name)) continue;
        if (!run_kernel(k, &s, &rows[nrows])) continue;
        all_ok = all_ok && strcmp(rows[nrows].verified, "NO") != 0;
        ++nrows;
    }
    if (options_selects(o, yardstick->name) && o->check_dump == NULL) {
        run_kernel(yardstick, &s, &rows[nrows]);
        all_ok = all_ok && strcmp(rows[nrows].verified, "NO") != 0;
        cublas_at = nrows++;
    }
    for (i = 0; i < nrows; ++i) {
        rows[i].pct_cublas = cublas_at < 0 ? -1.0 : 100.0 * rows[cublas_at].t.median / rows[i].t.median;
        rows[i].speedup_prev = i == 0 ? -1.0 : rows[i - 1].t.median / rows[i].t.median;
    }

    if (o->check_dump == NULL) { /* --check-dump timed nothing: its PASSED/FAILED lines are the report */
        fprintf(s.out, "\n");
        report_table(s.out, rows, nrows);
        env->ctx.m = o->m;
        env->ctx.n = o->n;
        env->ctx.k = o->k;
        chapter_emit(env, rows, nrows);
    }

    CUBLAS_CHECK(cublasDestroy(ref_handle));
    CUBLAS_CHECK(cublasDestroy(timed_handle));
    CUDA_CHECK(cudaFree(s.dA));
    CUDA_CHECK(cudaFree(s.dB));
    CUDA_CHECK(cudaFree(s.dA16));
    CUDA_CHECK(cudaFree(s.dB16));
    CUDA_CHECK(cudaFree(s.dC));
    free(s.hA);
    free(s.hB);
    free(s.hGot);
    free(s.hWant);
    free(s.hAbs);
    return all_ok;
}

/* Whether --only selects any kernel of a line, or its cuBLAS row. */
static int selects_line(const gemm_chapter *ch, const options *o, int tc)
{
    int i;
    for (i = 0; i < ch->count; ++i)
        if ((ch->kernels[i].launch_tc != NULL) == tc && options_selects(o, ch->kernels[i].name)) return 1;
    return options_selects(o, tc ? "cublas_bf16" : "cublas");
}

int gemm_chapter_main(int argc, char **argv, const gemm_chapter *ch)
{
    chapter_env env;
    const options *o = &env.o;
    char names[512];
    int i, tc_built = 0, all_ok = 1, rc;

    list_names(ch, names, sizeof names);
    options_defaults(&env.o);
    env.o.names = names;
    env.o.extra = ch->extras;
    env.o.nextra = ch->nextras;
    rc = chapter_parse(&env, argc, argv, ch->chapter, ch->title);
    if (rc >= 0) return rc;
    if (ch->count + 1 > MAX_ROWS) {
        fprintf(stderr, "%s: too many kernels\n", ch->chapter);
        return EXIT_USAGE;
    }
    for (i = 0; i < ch->count; ++i) tc_built = tc_built || ch->kernels[i].launch_tc != NULL;
    chapter_start(&env, ch->chapter, ch->title);

    /* A chapter's other demonstrations (chapter 04's task queues) come first. */
    if (ch->demo != NULL && o->check_dump == NULL && options_selects_any(o, ch->demo_name)) {
        rc = ch->demo(&env);
        if (rc != EXIT_VERIFIED) all_ok = 0;
        if (rc != EXIT_VERIFIED && rc != EXIT_VERIFY_FAILED) return rc;
    }

    /* Then the FP32 line, then the tensor-core line; only what --only selects. */
    if (selects_line(ch, o, 0)) all_ok = gemm_section(&env, ch, 0) && all_ok;
    if (tc_built && selects_line(ch, o, 1)) all_ok = gemm_section(&env, ch, 1) && all_ok;
    else if (ch->tc_line && !tc_built && o->only == NULL)
        fprintf(env.out, "\ntensor cores: this chapter's BF16 kernels need compute capability 8.0 (mma.sync with BF16) "
                         "and a build for it; this build is for %s\n", TUTORIAL_ARCH);
    return chapter_finish(&env, all_ok);
}
