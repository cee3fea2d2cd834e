/**
 * @file test_common.c
 * @brief Host unit tests of common/ (no GPU needed).
 *
 * `test_common --list` prints the test names; `test_common NAME` runs one and
 * exits 0 when it passed. tests/run.sh runs each as its own test.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/exit_codes.h"
#include "../../common/matrix.h"
#include "../../common/options.h"
#include "../../common/report.h"
#include "../../common/stats.h"
#include "../../common/verify.h"
#include "../../common/watchdog.h"

static int failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            ++failures;                                                              \
        }                                                                            \
    } while (0)

/* ---------------------------------------------------------------- options */

static options_status parse(int argc, char **argv, options *o, char *err)
{
    options_defaults(o);
    err[0] = '\0';
    return options_parse(argc, argv, o, err, 256);
}

static void test_options_defaults_and_values(void)
{
    options o;
    char err[256];
    char *argv[] = {"run", "--m", "17", "--n=33", "--k", "9", "--reps", "5", "--warmup", "0",
                    "--seed", "42", "--csv", "--only", "tiled,cublas", "--timeout", "2.5"};
    CHECK(parse(1, argv, &o, err) == OPTIONS_OK);
    CHECK(o.m == 4096 && o.n == 4096 && o.k == 4096 && o.reps >= 20 && o.verify == 1);
    CHECK(parse((int)(sizeof argv / sizeof argv[0]), argv, &o, err) == OPTIONS_OK);
    CHECK(o.m == 17 && o.n == 33 && o.k == 9);
    CHECK(o.reps == 5 && o.warmup == 0 && o.seed == 42 && o.csv == 1 && o.json == 0);
    CHECK(fabs(o.timeout_s - 2.5) < 1e-12);
    CHECK(options_selects(&o, "tiled") && options_selects(&o, "cublas"));
    CHECK(!options_selects(&o, "naive") && !options_selects(&o, "tile"));
}

static void test_options_rejects_bad_input(void)
{
    /* Each row: an argument list that must be rejected with a message. */
    static char *bad[][4] = {
        {"--m", "-1"},          {"--m", "0"},          {"--m", "abc"},
        {"--m", "12abc"},       {"--m", ""},           {"--m", "99999999999999999999"},
        {"--m", "262145"},      {"--n", " 5"},         {"--bogus"},
        {"--m"},                {"--reps", "0"},       {"--warmup", "-2"},
        {"--seed", "-1"},       {"--timeout", "0"},    {"--timeout", "nan"},
        {"--timeout", "-3"},    {"--csv=1"},           {"--csv", "--json"},
        {"stray"},              {"-m", "5"},           {"--m", "200000", "--k", "200000"},
        {"--only", ""},         {"--trace", ""},       {"--"},
        {"--dump", ""},         {"--check-dump", ""},  {"--dump", "d", "--no-verify"},
        {"--check-dump", "d", "--dump", "e"},          {"--check-dump", "d", "--no-verify"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char *argv[5] = {"run"};
        int argc = 1, j;
        options o;
        char err[256];
        for (j = 0; j < 4 && bad[i][j] != NULL; ++j) argv[argc++] = bad[i][j];
        if (parse(argc, argv, &o, err) != OPTIONS_ERROR || err[0] == '\0') {
            fprintf(stderr, "accepted bad input #%zu: %s %s\n", i, bad[i][0],
                    bad[i][1] ? bad[i][1] : "");
            ++failures;
        }
    }
}

static void test_options_help(void)
{
    options o;
    char err[256];
    char *a[] = {"run", "--help"}, *b[] = {"run", "-h"}, *c[] = {"run", "--m", "5", "--help"};
    CHECK(parse(2, a, &o, err) == OPTIONS_HELP);
    CHECK(parse(2, b, &o, err) == OPTIONS_HELP);
    CHECK(parse(4, c, &o, err) == OPTIONS_HELP);
}

/* A chapter's own options (chapter 05's shape): --tasks N in [1, 100], a
 * flag, no --m/--n/--k, and names for --only. */
static options_status parse_extra(int argc, char **argv, options *o, option_extra *x, char *err)
{
    options_defaults(o);
    x[0] = (option_extra){"tasks", "how many tasks", 1, 100, 10};
    x[1] = (option_extra){"skip-reset", "a flag", 0, 0, 0};
    o->extra = x;
    o->nextra = 2;
    o->mnk = 0;
    o->names = "two_stage softmax sync";
    err[0] = '\0';
    return options_parse(argc, argv, o, err, 256);
}

static void test_options_extra(void)
{
    options o;
    option_extra x[2];
    char err[256];
    char *none[] = {"run"};
    char *good[] = {"run", "--tasks", "7", "--skip-reset", "--only", "sync,two_stage"};
    char *eq[] = {"run", "--tasks=100"};
    static char *bad[][3] = {
        {"--tasks", "0"}, {"--tasks", "101"}, {"--tasks", "x"}, {"--tasks"},
        {"--skip-reset=1"}, {"--m", "5"}, {"--n", "5"}, {"--k", "5"}, {"--task", "5"},
        {"--skip", "--tasks", "5"}, {"--only", "sync,twostage"}, {"--only", "sync,"},
        {"--only", "syn"},
    };
    size_t i;
    CHECK(parse_extra(1, none, &o, x, err) == OPTIONS_OK);
    CHECK(options_extra_value(&o, "tasks") == 10 && options_extra_value(&o, "skip-reset") == 0);
    CHECK(parse_extra(6, good, &o, x, err) == OPTIONS_OK);
    CHECK(options_extra_value(&o, "tasks") == 7 && options_extra_value(&o, "skip-reset") == 1);
    CHECK(options_selects(&o, "sync") && options_selects(&o, "two_stage") && !options_selects(&o, "softmax"));
    CHECK(parse_extra(2, eq, &o, x, err) == OPTIONS_OK && options_extra_value(&o, "tasks") == 100);
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char *argv[4] = {"run"};
        int argc = 1, j;
        for (j = 0; j < 3 && bad[i][j] != NULL; ++j) argv[argc++] = bad[i][j];
        if (parse_extra(argc, argv, &o, x, err) != OPTIONS_ERROR || err[0] == '\0') {
            fprintf(stderr, "accepted bad input #%zu: %s\n", i, bad[i][0]);
            ++failures;
        }
    }
    /* A chapter's options appear in the help, the ones it turned off do not. */
    {
        char buf[4096] = "";
        FILE *f = fmemopen(buf, sizeof buf - 1, "w");
        CHECK(f != NULL);
        if (f != NULL) {
            parse_extra(1, none, &o, x, err);
            options_print_help(f, "run", &o);
            fclose(f);
            CHECK(strstr(buf, "--tasks N") != NULL && strstr(buf, "[10]") != NULL);
            CHECK(strstr(buf, "--skip-reset") != NULL && strstr(buf, "from: two_stage softmax sync") != NULL);
            CHECK(strstr(buf, "--m X") == NULL && strstr(buf, "--n X") == NULL && strstr(buf, "--k X") == NULL);
        }
    }
}

/* ----------------------------------------------------------------- verify */

/* A small GEMM whose "kernel" we can break on purpose. drop_last drops the
 * product for k = K-1: what an off-by-one in a K-tile bound does. */
static void host_gemm(const float *A, const float *B, float *C, long m, long n, long k,
                      int drop_last)
{
    long i, j, t;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (t = 0; t < k - (drop_last ? 1 : 0); ++t) acc = fmaf(A[i * k + t], B[t * n + j], acc);
            C[i * n + j] = acc;
        }
}

static void host_ref(const float *A, const float *B, float *C, float *absC, long m, long n, long k)
{
    long i, j, t;
    for (i = 0; i < m; ++i)
        for (j = 0; j < n; ++j) {
            double s = 0.0, a = 0.0;
            for (t = 0; t < k; ++t) {
                s += (double)A[i * k + t] * B[t * n + j];
                a += fabs((double)A[i * k + t] * B[t * n + j]);
            }
            C[i * n + j] = (float)s;
            absC[i * n + j] = (float)a;
        }
}

typedef struct {
    long m, n, k;
    float *A, *B, *got, *want, *abs;
} problem;

static problem make_problem(long m, long n, long k, uint64_t seed)
{
    problem p = {m, n, k, NULL, NULL, NULL, NULL, NULL};
    p.A = xmalloc((size_t)(m * k) * sizeof(float));
    p.B = xmalloc((size_t)(k * n) * sizeof(float));
    p.got = xmalloc((size_t)(m * n) * sizeof(float));
    p.want = xmalloc((size_t)(m * n) * sizeof(float));
    p.abs = xmalloc((size_t)(m * n) * sizeof(float));
    fill_uniform(p.A, (size_t)(m * k), seed, 0);
    fill_uniform(p.B, (size_t)(k * n), seed, 1);
    host_ref(p.A, p.B, p.want, p.abs, m, n, k);
    return p;
}

static void free_problem(problem *p)
{
    free(p->A);
    free(p->B);
    free(p->got);
    free(p->want);
    free(p->abs);
}

static void test_verify_correct_result_passes(void)
{
    problem p = make_problem(67, 45, 523, 3);
    compare_result r;
    host_gemm(p.A, p.B, p.got, p.m, p.n, p.k, 0); /* FP32, another summation order */
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(compare_passed(&r));
    CHECK(r.checked == p.m * p.n && r.bad == 0 && r.nonfinite == 0);
    CHECK(r.max_err_over_tol < 0.1); /* real FP32 error sits far below the tolerance */
    CHECK(r.rel_fro < 1e-5);
    free_problem(&p);
}

static void test_verify_catches_tile_bound_off_by_one(void)
{
    problem p = make_problem(64, 64, 300, 4);
    compare_result r;
    host_gemm(p.A, p.B, p.got, p.m, p.n, p.k, 1); /* one product term missing per element */
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r));
    CHECK(r.bad > p.m * p.n / 2); /* most elements: a missing term is far above tolerance */
    CHECK(r.first_row >= 0 && r.first_col >= 0);
    free_problem(&p);
}

static void test_verify_catches_unwritten_output(void)
{
    problem p = make_problem(33, 17, 40, 5);
    compare_result r;
    unsigned int poison = 0xFFFFFFFFu; /* what device_poison() leaves in C */
    host_gemm(p.A, p.B, p.got, p.m, p.n, p.k, 0);
    memcpy(&p.got[p.m * p.n - 1], &poison, sizeof poison); /* last element never written */
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r));
    CHECK(r.bad == 1 && r.nonfinite == 1);
    CHECK(r.first_row == p.m - 1 && r.first_col == p.n - 1);
    free_problem(&p);
}

static void test_verify_catches_nan_and_inf(void)
{
    problem p = make_problem(16, 16, 16, 6);
    compare_result r;
    host_gemm(p.A, p.B, p.got, p.m, p.n, p.k, 0);
    p.got[5] = NAN;
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r) && r.bad == 1 && r.nonfinite == 1);
    p.got[5] = p.want[5];
    p.got[7] = INFINITY;
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r) && r.bad == 1 && r.nonfinite == 1);
    /* a NaN in the reference must not make the check pass either */
    p.got[7] = p.want[7];
    p.want[9] = NAN;
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r));
    free_problem(&p);
}

static void test_verify_small_error_fails(void)
{
    /* One element off by a small absolute amount (0.01) fails at K = 64. */
    problem p = make_problem(8, 8, 64, 9);
    compare_result r;
    host_gemm(p.A, p.B, p.got, p.m, p.n, p.k, 0);
    p.got[10] += 0.01f;
    compare_gemm(p.got, p.want, p.abs, p.m, p.n, p.k, &r);
    CHECK(!compare_passed(&r) && r.bad == 1);
    free_problem(&p);
}

static void test_verify_tolerance_scales_with_k(void)
{
    double t1 = gemm_tolerance(1024, 100.0), t4 = gemm_tolerance(4096, 100.0);
    CHECK(fabs(t4 / t1 - 2.0) < 1e-9);                      /* sqrt(K) growth */
    CHECK(gemm_tolerance(1024, 200.0) > 1.99 * t1);         /* proportional to |A||B| */
    CHECK(gemm_tolerance(7, 0.0) > 0.0 && gemm_tolerance(7, 0.0) < 1e-30); /* exact zero allowed */
    /* For uniform[-1,1] inputs (|A||B|)_ij is about K/4 and one product term
     * averages 1/4: at K = 4096 the tolerance must sit well below that. */
    CHECK(gemm_tolerance(4096, 4096 / 4.0) < 0.125);
}

static void test_sample_check_fp64(void)
{
    problem p = make_problem(40, 50, 70, 8);
    sample_result r;
    memcpy(p.got, p.want, (size_t)(p.m * p.n) * sizeof(float));
    sample_check_fp64(p.A, p.B, p.got, p.m, p.n, p.k, 1, 32, &r);
    CHECK(r.samples == 9 + 32 && r.bad == 0);
    p.got[(p.m - 1) * p.n + (p.n - 1)] += 0.5f; /* the last corner is always sampled */
    sample_check_fp64(p.A, p.B, p.got, p.m, p.n, p.k, 1, 32, &r);
    CHECK(r.bad >= 1 && r.first_row == p.m - 1 && r.first_col == p.n - 1);
    free_problem(&p);
}

/* ------------------------------------------------------------ stats, rng */

static void test_stats(void)
{
    const float odd[] = {3.0f, 1.0f, 2.0f}, even[] = {4.0f, 1.0f, 3.0f, 2.0f};
    const float bad[] = {1.0f, NAN};
    time_stats t;
    CHECK(stats_summarize(odd, 3, &t) == 0 && t.median == 2.0 && t.min == 1.0 && t.max == 3.0);
    CHECK(odd[0] == 3.0f); /* input untouched */
    CHECK(stats_summarize(even, 4, &t) == 0 && t.median == 2.5 && t.count == 4);
    CHECK(stats_summarize(odd, 0, &t) == -1);
    CHECK(stats_summarize(bad, 2, &t) == -1);
    CHECK(fabs(gemm_tflops(4096, 4096, 4096, 1.0) - 137.438953472) < 1e-6);
    CHECK(gemm_tflops(1, 1, 1, 0.0) == 0.0);
}

static void test_fill_uniform(void)
{
    float a[1000], b[1000], c[1000];
    int i, differ = 0, neg = 0;
    fill_uniform(a, 1000, 7, 0);
    fill_uniform(b, 1000, 7, 0);
    fill_uniform(c, 1000, 7, 1);
    CHECK(memcmp(a, b, sizeof a) == 0);
    for (i = 0; i < 1000; ++i) {
        CHECK(a[i] >= -1.0f && a[i] <= 1.0f);
        CHECK(a[i] * 8388608.0f == floorf(a[i] * 8388608.0f)); /* multiple of 2^-23 */
        differ += a[i] != c[i];
        neg += a[i] < 0.0f;
    }
    CHECK(differ > 990);
    CHECK(neg > 400 && neg < 600);
}

/* ----------------------------------------------------------------- report */

static report_row sample_row(const char *kernel, const char *knobs, double ms, double pct, double sp)
{
    report_row r;
    memset(&r, 0, sizeof r);
    r.kernel = kernel;
    r.knobs = knobs;
    r.t.median = ms;
    r.t.min = ms * 0.9;
    r.t.max = ms * 1.1;
    r.t.count = 20;
    r.tflops = 1.5;
    r.pct_cublas = pct;
    r.speedup_prev = sp;
    r.verified = "yes";
    return r;
}

static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; ++s) n += *s == c;
    return n;
}

static void test_report_csv(void)
{
    report_context c = {"NVIDIA H100 80GB HBM3", "580.1", "13.0", "abc123", "2026-11-21T00:00:00Z",
                        "01_naive", 4096, 4096, 4096};
    report_row rows[2];
    FILE *f;
    char *buf = NULL;
    size_t len;
    rows[0] = sample_row("blocked", "BM=128 BN=128", 3.0, 80.0, -1.0);
    rows[1] = sample_row("odd", "a,b \"q\"", 2.0, -1.0, 1.5);
    f = open_memstream(&buf, &len);
    report_csv(f, &c, rows, 2, 1);
    fclose(f);
    {
        const char *hdr = "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,"
                          "ms_max,tflops,pct_cublas,verified\n";
        CHECK(strncmp(buf, hdr, strlen(hdr)) == 0);
    }
    CHECK(strstr(buf, "\nNVIDIA H100 80GB HBM3,580.1,13.0,abc123,2026-11-21T00:00:00Z,01_naive,"
                      "blocked,4096,4096,4096,BM=128 BN=128,3.00000,2.70000,3.30000,1.500,80.00,yes\n") != NULL);
    CHECK(strstr(buf, ",\"a,b \"\"q\"\"\",") != NULL); /* RFC 4180 quoting */
    CHECK(strstr(buf, ",NA,yes\n") != NULL);           /* no cuBLAS time -> NA */
    free(buf);
}

static void test_report_table_and_json(void)
{
    report_context c = {"G", "D", "13.0", "unknown", "now", "01_naive", 1, 2, 3};
    report_row rows[2];
    FILE *f;
    char *buf = NULL;
    size_t len;
    rows[0] = sample_row("naive", "block=32x8", 10.0, 10.0, -1.0);
    rows[1] = sample_row("blocked", "BM=128", 1.0, 100.0, 10.0);
    f = open_memstream(&buf, &len);
    report_table(f, rows, 2);
    fclose(f);
    CHECK(strstr(buf, "kernel") == buf);
    CHECK(strstr(buf, "naive") && strstr(buf, "blocked") && strstr(buf, "10.00x"));
    CHECK(strstr(buf, "10.0%") && strstr(buf, "100.0%"));
    free(buf);
    buf = NULL;
    rows[1].pct_cublas = -1.0;
    rows[1].kernel = "q\"uote";
    f = open_memstream(&buf, &len);
    report_json(f, &c, rows, 2);
    fclose(f);
    CHECK(count_char(buf, '\n') == 2);
    CHECK(strstr(buf, "{\"gpu\":\"G\",") == buf);
    CHECK(strstr(buf, "\"kernel\":\"q\\\"uote\"") != NULL);
    CHECK(strstr(buf, "\"pct_cublas\":null") != NULL);
    CHECK(strstr(buf, "\"m\":1,\"n\":2,\"k\":3") != NULL);
    free(buf);
}

/* --------------------------------------------------------------- watchdog */

/* Run fn in a child; return its exit status and what it wrote to stderr. */
static int run_child(void (*fn)(void), char *err, size_t errlen)
{
    int fd[2], status = 0;
    pid_t pid;
    ssize_t got;
    if (pipe(fd) != 0) return -1;
    pid = fork();
    if (pid == 0) {
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        fn();
        _exit(0);
    }
    close(fd[1]);
    got = read(fd[0], err, errlen - 1);
    err[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void hang_under_watchdog(void)
{
    watchdog_arm(0.2, "spinning kernel");
    for (;;) pause(); /* stands in for a cudaDeviceSynchronize() that never returns */
}

static void finish_in_time(void)
{
    watchdog_arm(0.3, "quick phase");
    watchdog_disarm();
    {
        struct timespec ts = {0, 600000000L};
        nanosleep(&ts, NULL);
    }
}

static void test_watchdog_turns_hang_into_exit_5(void)
{
    char err[1024];
    CHECK(run_child(hang_under_watchdog, err, sizeof err) == EXIT_WATCHDOG);
    CHECK(strstr(err, "'spinning kernel' did not finish") != NULL);
    CHECK(strstr(err, "deadlock?") != NULL);
}

static void test_watchdog_disarm(void)
{
    char err[1024];
    CHECK(run_child(finish_in_time, err, sizeof err) == 0);
    CHECK(err[0] == '\0');
}

/* ------------------------------------------------------------------ main */

typedef struct {
    const char *name;
    void (*fn)(void);
} test_case;

static const test_case tests[] = {
    {"options_defaults_and_values", test_options_defaults_and_values},
    {"options_rejects_bad_input", test_options_rejects_bad_input},
    {"options_help", test_options_help},
    {"options_extra", test_options_extra},
    {"verify_correct_result_passes", test_verify_correct_result_passes},
    {"verify_catches_tile_bound_off_by_one", test_verify_catches_tile_bound_off_by_one},
    {"verify_catches_unwritten_output", test_verify_catches_unwritten_output},
    {"verify_catches_nan_and_inf", test_verify_catches_nan_and_inf},
    {"verify_small_error_fails", test_verify_small_error_fails},
    {"verify_tolerance_scales_with_k", test_verify_tolerance_scales_with_k},
    {"sample_check_fp64", test_sample_check_fp64},
    {"stats", test_stats},
    {"fill_uniform", test_fill_uniform},
    {"report_csv", test_report_csv},
    {"report_table_and_json", test_report_table_and_json},
    {"watchdog_turns_hang_into_exit_5", test_watchdog_turns_hang_into_exit_5},
    {"watchdog_disarm", test_watchdog_disarm},
};

int main(int argc, char **argv)
{
    size_t i;
    if (argc == 2 && !strcmp(argv[1], "--list")) {
        for (i = 0; i < sizeof tests / sizeof tests[0]; ++i) printf("%s\n", tests[i].name);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: %s --list | TEST\n", argv[0]);
        return EXIT_USAGE;
    }
    for (i = 0; i < sizeof tests / sizeof tests[0]; ++i)
        if (!strcmp(argv[1], tests[i].name)) {
            tests[i].fn();
            return failures ? 1 : 0;
        }
    fprintf(stderr, "no test '%s'\n", argv[1]);
    return EXIT_USAGE;
}
