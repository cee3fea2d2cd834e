/**
 * @file options.c
 * @brief Strict parsing of the shared command line (see options.h):
 *        getopt_long() finds the options and their values, this file
 *        checks the values.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

void options_defaults(options *o)
{
    memset(o, 0, sizeof *o);
    o->m = o->n = o->k = 4096;
    o->reps = 20;
    o->warmup = 3;
    o->seed = 1;
    o->verify = 1;
    o->timeout_s = 60.0;
    o->mnk = 1;
}

/* strtol accepts leading blanks, a sign and trailing junk; we accept none of
 * them, so "12abc", " 12" and "" are errors rather than silently 12 or 0. */
static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v;
    if (s == NULL || *s == '\0' || !(*s == '-' || (*s >= '0' && *s <= '9')))
        return 0;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_u64(const char *s, unsigned long long *out)
{
    char *end;
    unsigned long long v;
    if (s == NULL || !(*s >= '0' && *s <= '9'))   /* strtoull would accept "-1" */
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno == ERANGE || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

static int parse_seconds(const char *s, double *out)
{
    char *end;
    double v;
    if (s == NULL || !((*s >= '0' && *s <= '9') || *s == '.'))
        return 0;
    errno = 0;
    v = strtod(s, &end);
    if (errno == ERANGE || *end != '\0' || !(v > 0.0) || v > 86400.0)
        return 0;
    *out = v;
    return 1;
}

/* getopt_long() returns an option's `val`: ours start above every char. */
enum {
    OPT_M = 256, OPT_N, OPT_K, OPT_REPS, OPT_WARMUP, OPT_SEED, OPT_ONLY, OPT_NO_VERIFY,
    OPT_CSV, OPT_JSON, OPT_TRACE, OPT_TIMEOUT, OPT_SMEM_LIMIT, OPT_DUMP, OPT_CHECK_DUMP, OPT_HELP,
    OPT_EXTRA /* OPT_EXTRA + i: the chapter's option i */
};

/* The shared options with their help lines, in the order --help lists them. */
static const struct {
    struct option opt;
    const char *help;
} shared[] = {
    {{"m", required_argument, NULL, OPT_M}, "rows of A and C"},
    {{"n", required_argument, NULL, OPT_N}, "columns of B and C"},
    {{"k", required_argument, NULL, OPT_K}, "columns of A = rows of B (the reduction length)"},
    {{"reps", required_argument, NULL, OPT_REPS}, "timed repetitions per kernel (median, min and max are reported)"},
    {{"warmup", required_argument, NULL, OPT_WARMUP}, "untimed runs per kernel before timing"},
    {{"seed", required_argument, NULL, OPT_SEED}, "seed of the uniform[-1,1] inputs"},
    {{"only", required_argument, NULL, OPT_ONLY}, "what to run, comma-separated names"},
    {{"no-verify", no_argument, NULL, OPT_NO_VERIFY}, "skip verification (profiling only; the run ends UNVERIFIED)"},
    {{"csv", no_argument, NULL, OPT_CSV}, "write CSV rows to stdout (the human report goes to stderr)"},
    {{"json", no_argument, NULL, OPT_JSON}, "write JSON lines to stdout (the human report goes to stderr)"},
    {{"trace", required_argument, NULL, OPT_TRACE}, "trace one run of each kernel: Chrome trace JSON to FILE, CSV beside it (a TRACE=1 build)"},
    {{"timeout", required_argument, NULL, OPT_TIMEOUT}, "seconds one kernel's verify+time phase may take before the watchdog exits 5"},
    {{"smem-limit", required_argument, NULL, OPT_SMEM_LIMIT}, "let a block have at most X bytes of shared memory, as a smaller GPU would"},
    {{"dump", required_argument, NULL, OPT_DUMP}, "write each kernel's first outputs to files in folder DIR (for --check-dump)"},
    {{"check-dump", required_argument, NULL, OPT_CHECK_DUMP}, "run nothing: check the outputs another run wrote with --dump DIR, same options"},
    {{"help", no_argument, NULL, OPT_HELP}, "print this help and exit"},
};
#define NSHARED ((int)(sizeof shared / sizeof shared[0])) /**< number of shared options */

static int is_dim(int val) { return val == OPT_M || val == OPT_N || val == OPT_K; }

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, fmt, a, b);
}

/* The option table getopt_long() gets: the shared options (less --m/--n/--k
 * for a chapter without matrices) and the chapter's own. */
static int build_table(const options *o, struct option *t)
{
    int i, n = 0;
    for (i = 0; i < NSHARED; ++i)
        if (o->mnk || !is_dim(shared[i].opt.val)) t[n++] = shared[i].opt;
    for (i = 0; i < o->nextra && i < OPTIONS_MAX_EXTRA; ++i) {
        const int flag = o->extra[i].lo == 0 && o->extra[i].hi == 0;
        t[n++] = (struct option){o->extra[i].name, flag ? no_argument : required_argument, NULL, OPT_EXTRA + i};
    }
    t[n] = (struct option){NULL, 0, NULL, 0};
    return n;
}

static const char *name_of(const struct option *t, int val)
{
    for (; t->name != NULL; ++t)
        if (t->val == val) return t->name;
    return "?";
}

/* Whether every comma-separated name in @p only is a word of @p names. */
static int only_known(const char *only, const char *names, char *err, size_t errlen)
{
    const char *p = only;
    for (;;) {
        const size_t len = strcspn(p, ",");
        const char *w = names;
        int found = 0;
        while (!found && *w) {
            const size_t wl = strcspn(w, " ");
            found = len > 0 && wl == len && strncmp(w, p, len) == 0;
            w += wl + (w[wl] == ' ');
        }
        if (!found) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "--only: no '%.*s' here (choose from: %s)", (int)len, p, names);
            return 0;
        }
        if (p[len] == '\0') return 1;
        p += len + 1;
    }
}

/* Check and store the value of option @p val (from getopt_long). */
static options_status apply(options *o, int val, const char *name, const char *arg, char *err,
                            size_t errlen)
{
    long v;
    switch (val) {
    case OPT_M:
    case OPT_N:
    case OPT_K:
        if (!parse_long(arg, 1, OPTIONS_MAX_DIM, &v)) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "--%s needs a whole number from 1 to %ld, got '%s'", name, OPTIONS_MAX_DIM, arg);
            return OPTIONS_ERROR;
        }
        *(val == OPT_M ? &o->m : val == OPT_N ? &o->n : &o->k) = v;
        break;
    case OPT_REPS:
        if (!parse_long(arg, 1, 100000, &v)) {
            set_err(err, errlen, "--%s needs a whole number from 1 to 100000, got '%s'", name, arg);
            return OPTIONS_ERROR;
        }
        o->reps = (int)v;
        break;
    case OPT_WARMUP:
        if (!parse_long(arg, 0, 10000, &v)) {
            set_err(err, errlen, "--%s needs a whole number from 0 to 10000, got '%s'", name, arg);
            return OPTIONS_ERROR;
        }
        o->warmup = (int)v;
        break;
    case OPT_SEED:
        if (!parse_u64(arg, &o->seed)) {
            set_err(err, errlen, "--%s needs a non-negative whole number, got '%s'", name, arg);
            return OPTIONS_ERROR;
        }
        break;
    case OPT_ONLY:
        if (arg[0] == '\0') {
            set_err(err, errlen, "--%s needs names%s", name, "");
            return OPTIONS_ERROR;
        }
        if (o->names != NULL && !only_known(arg, o->names, err, errlen)) return OPTIONS_ERROR;
        o->only = arg;
        break;
    case OPT_TRACE:
        if (arg[0] == '\0') {
            set_err(err, errlen, "--%s needs a file name%s", name, "");
            return OPTIONS_ERROR;
        }
        o->trace = arg;
        break;
    case OPT_DUMP:
    case OPT_CHECK_DUMP:
        if (arg[0] == '\0') {
            set_err(err, errlen, "--%s needs a folder%s", name, "");
            return OPTIONS_ERROR;
        }
        *(val == OPT_DUMP ? &o->dump : &o->check_dump) = arg;
        break;
    case OPT_TIMEOUT:
        if (!parse_seconds(arg, &o->timeout_s)) {
            set_err(err, errlen, "--%s needs seconds, more than 0 and at most 86400, got '%s'", name, arg);
            return OPTIONS_ERROR;
        }
        break;
    case OPT_SMEM_LIMIT:
        if (!parse_long(arg, 1024, 1L << 20, &o->smem_limit)) {
            set_err(err, errlen, "--%s needs bytes, a whole number from 1024 to 1048576, got '%s'", name, arg);
            return OPTIONS_ERROR;
        }
        break;
    case OPT_NO_VERIFY: o->verify = 0; break;
    case OPT_CSV: o->csv = 1; break;
    case OPT_JSON: o->json = 1; break;
    case OPT_HELP: return OPTIONS_HELP;
    default: { /* the chapter's own option */
        option_extra *x = &o->extra[val - OPT_EXTRA];
        if (x->lo == 0 && x->hi == 0) {
            x->value = 1;
        } else if (!parse_long(arg, x->lo, x->hi, &x->value)) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "--%s needs a whole number from %ld to %ld, got '%s'", name, x->lo,
                         x->hi, arg);
            return OPTIONS_ERROR;
        }
    }
    }
    return OPTIONS_OK;
}

options_status options_parse(int argc, char **argv, options *o, char *err, size_t errlen)
{
    struct option table[NSHARED + OPTIONS_MAX_EXTRA + 1];
    build_table(o, table);
    /* "+": stop at the first word that is not an option (we reject it below)
     * instead of reordering argv; ":": report a missing value as ':'. */
    opterr = 0;
    optind = 0; /* glibc: start afresh (the unit tests parse many command lines) */
    for (;;) {
        const int at = optind > 0 ? optind : 1; /* argv[at] is the option getopt reads next */
        int idx = -1;
        const int c = getopt_long(argc, argv, "+:h", table, &idx);
        const char *text = at < argc ? argv[at] : "";
        options_status st;
        if (c == -1) break;
        if (c == 'h') return OPTIONS_HELP;
        if (c == ':') {
            set_err(err, errlen, "--%s needs a value%s", name_of(table, optopt), "");
            return OPTIONS_ERROR;
        }
        if (c == '?') {
            if (optopt >= OPT_M)
                set_err(err, errlen, "--%s takes no value%s", name_of(table, optopt), "");
            else if (err != NULL && errlen > 0)
                snprintf(err, errlen, "unknown option '%.*s' (try --help)", (int)strcspn(text, "="), text);
            return OPTIONS_ERROR;
        }
        /* getopt_long() also takes unambiguous abbreviations ("--tas" for
         * "--tasks"); the chapters' docs and scripts spell options out, so
         * a shortened name is rejected like any unknown one. */
        {
            const char *name = table[idx].name;
            const size_t len = strlen(name);
            if (strncmp(text, "--", 2) != 0 || strncmp(text + 2, name, len) != 0 ||
                (text[2 + len] != '\0' && text[2 + len] != '=')) {
                if (err != NULL && errlen > 0)
                    snprintf(err, errlen, "unknown option '%.*s' (did you mean --%s?)", (int)strcspn(text, "="),
                             text, name);
                return OPTIONS_ERROR;
            }
            st = apply(o, c, name, optarg, err, errlen);
        }
        if (st != OPTIONS_OK) return st;
    }
    if (optind < argc || (optind > 1 && strcmp(argv[optind - 1], "--") == 0)) {
        set_err(err, errlen, "unexpected argument '%s'%s (options start with --; try --help)",
                optind < argc ? argv[optind] : "--", "");
        return OPTIONS_ERROR;
    }
    if (o->csv && o->json) {
        set_err(err, errlen, "--csv and --json are exclusive%s%s", "", "");
        return OPTIONS_ERROR;
    }
    if (o->dump != NULL && !o->verify) {
        set_err(err, errlen, "--dump writes the checked first run of each kernel: it takes no --no-verify%s%s", "", "");
        return OPTIONS_ERROR;
    }
    if (o->check_dump != NULL && (o->dump != NULL || !o->verify || o->trace != NULL)) {
        set_err(err, errlen, "--check-dump checks another run's outputs: it takes no --dump, --no-verify or --trace%s%s",
                "", "");
        return OPTIONS_ERROR;
    }
    /* Kernels index with int: every matrix must have fewer than 2^31 elements. */
    if (o->m * o->k > OPTIONS_MAX_ELEMENTS || o->k * o->n > OPTIONS_MAX_ELEMENTS ||
        o->m * o->n > OPTIONS_MAX_ELEMENTS) {
        set_err(err, errlen, "matrices too large: each of A, B and C must have fewer than 2^31 elements%s%s", "", "");
        return OPTIONS_ERROR;
    }
    return OPTIONS_OK;
}

void options_print_help(FILE *f, const char *prog, const options *o)
{
    int s;
    fprintf(f, "usage: %s [options]\n\noptions (defaults in brackets):\n", prog);
    for (s = 0; s < NSHARED; ++s) {
        char def[64] = "", flag[32];
        const int val = shared[s].opt.val;
        if (!o->mnk && is_dim(val)) continue;
        if (val == OPT_M) snprintf(def, sizeof def, " [%ld]", o->m);
        else if (val == OPT_N) snprintf(def, sizeof def, " [%ld]", o->n);
        else if (val == OPT_K) snprintf(def, sizeof def, " [%ld]", o->k);
        else if (val == OPT_REPS) snprintf(def, sizeof def, " [%d]", o->reps);
        else if (val == OPT_WARMUP) snprintf(def, sizeof def, " [%d]", o->warmup);
        else if (val == OPT_SEED) snprintf(def, sizeof def, " [%llu]", o->seed);
        else if (val == OPT_TIMEOUT) snprintf(def, sizeof def, " [%g]", o->timeout_s);
        else if (val == OPT_ONLY) snprintf(def, sizeof def, " [all]");
        else if (val == OPT_SMEM_LIMIT) snprintf(def, sizeof def, " [the GPU's]");
        snprintf(flag, sizeof flag, "--%s%s", shared[s].opt.name,
                 shared[s].opt.has_arg == required_argument
                     ? (val == OPT_TRACE ? " FILE" : val == OPT_DUMP || val == OPT_CHECK_DUMP ? " DIR" : " X")
                     : "");
        fprintf(f, "  %-18s %s%s\n", flag, shared[s].help, def);
        if (val == OPT_ONLY && o->names != NULL)
            fprintf(f, "  %-18s   from: %s\n", "", o->names);
    }
    for (s = 0; s < o->nextra; ++s) {
        char flag[40], def[48] = "";
        const option_extra *x = &o->extra[s];
        const int is_flag = x->lo == 0 && x->hi == 0;
        snprintf(flag, sizeof flag, "--%s%s", x->name, is_flag ? "" : " N");
        if (!is_flag) snprintf(def, sizeof def, " [%ld]", x->value);
        fprintf(f, "  %-18s %s%s\n", flag, x->help, def);
    }
    fprintf(f, "\nexit codes: 0 verified, 1 verification failed, 2 bad usage,\n"
               "            3 unsupported environment, 4 CUDA error, 5 watchdog timeout\n");
}

int options_selects(const options *o, const char *name)
{
    const char *p = o->only;
    const size_t len = strlen(name);
    if (p == NULL) return 1;
    while (*p) {
        const size_t l = strcspn(p, ",");
        if (l == len && strncmp(p, name, len) == 0) return 1;
        p += l + (p[l] == ',');
    }
    return 0;
}

int options_selects_any(const options *o, const char *names)
{
    char word[64];
    while (*names) {
        const size_t l = strcspn(names, " ");
        if (l > 0 && l < sizeof word) {
            memcpy(word, names, l);
            word[l] = '\0';
            if (options_selects(o, word)) return 1;
        }
        names += l + (names[l] == ' ');
    }
    return 0;
}

long options_extra_value(const options *o, const char *name)
{
    int e;
    for (e = 0; e < o->nextra; ++e)
        if (!strcmp(o->extra[e].name, name)) return o->extra[e].value;
    fprintf(stderr, "options_extra_value: no option '--%s' (a bug in the chapter)\n", name);
    abort();
}
