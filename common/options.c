/**
 * @file options.c
 * @brief Strict parsing of the shared command line (see options.h).
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void options_defaults(options *o)
{
    o->m = o->n = o->k = 4096;
    o->reps = 20;
    o->warmup = 3;
    o->seed = 1;
    o->verify = 1;
    o->csv = 0;
    o->json = 0;
    o->only = NULL;
    o->trace = NULL;
    o->timeout_s = 60.0;
    o->dims = OPT_DIMS_ALL;
    o->extra = NULL;
    o->nextra = 0;
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

/* Whether a shared option is on for this chapter (--m/--n/--k may be off). */
static int dim_accepted(const options *o, const char *name)
{
    if (!strcmp(name, "m")) return (o->dims & OPT_DIM_M) != 0;
    if (!strcmp(name, "n")) return (o->dims & OPT_DIM_N) != 0;
    if (!strcmp(name, "k")) return (o->dims & OPT_DIM_K) != 0;
    return 1;
}

/* One row per option: name, whether it takes a value, help text. */
typedef struct {
    const char *name;
    int takes_value;
    const char *help;
} option_spec;

static const option_spec specs[] = {
    {"m", 1, "rows of A and C"},
    {"n", 1, "columns of B and C"},
    {"k", 1, "columns of A = rows of B (the reduction length)"},
    {"reps", 1, "timed repetitions per kernel (median, min and max are reported)"},
    {"warmup", 1, "untimed runs per kernel before timing"},
    {"seed", 1, "seed of the uniform[-1,1] inputs"},
    {"only", 1, "comma-separated kernel names to run (see the table), e.g. blocked,cublas"},
    {"no-verify", 0, "skip verification (profiling only; the run ends UNVERIFIED)"},
    {"csv", 0, "write CSV rows to stdout (the human report goes to stderr)"},
    {"json", 0, "write JSON lines to stdout (the human report goes to stderr)"},
    {"trace", 1, "write device-side timestamps to FILE (chapters with trace points)"},
    {"timeout", 1, "seconds one kernel's verify+time phase may take before the watchdog exits 5"},
    {"help", 0, "print this help and exit"},
};
#define NSPECS ((int)(sizeof specs / sizeof specs[0])) /**< number of options */

static void set_err(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, fmt, a, b);
}

/* A chapter's own option: 1 when @p name is one and parsed, -1 when it is
 * one and its value is bad (message in err), 0 when there is none of that name. */
static int apply_extra(options *o, const char *name, const char *eq, int argc,
                                  char **argv, int *i, char *err, size_t errlen)
{
    int e;
    const char *val;
    char lo[32], hi[32];
    for (e = 0; e < o->nextra; ++e)
        if (!strcmp(o->extra[e].name, name)) break;
    if (e == o->nextra) return 0;
    if (o->extra[e].lo == 0 && o->extra[e].hi == 0) { /* a flag */
        if (eq) {
            set_err(err, errlen, "--%s takes no value%s", name, "");
            return -1;
        }
        o->extra[e].value = 1;
        return 1;
    }
    if (eq) val = eq + 1;
    else if (*i + 1 < argc) val = argv[++*i];
    else {
        set_err(err, errlen, "--%s needs a value%s", name, "");
        return -1;
    }
    if (!parse_long(val, o->extra[e].lo, o->extra[e].hi, &o->extra[e].value)) {
        snprintf(lo, sizeof lo, "%ld", o->extra[e].lo);
        snprintf(hi, sizeof hi, "%ld", o->extra[e].hi);
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "--%s needs a whole number from %s to %s, got '%s'", name, lo, hi, val);
        return -1;
    }
    return 1;
}

static options_status apply(options *o, const char *name, const char *val, char *err, size_t errlen)
{
    long v;
    if (!strcmp(name, "m") || !strcmp(name, "n") || !strcmp(name, "k")) {
        if (!parse_long(val, 1, OPTIONS_MAX_DIM, &v)) {
            set_err(err, errlen, "--%s needs a whole number from 1 to 262144, got '%s'", name, val);
            return OPTIONS_ERROR;
        }
        if (name[0] == 'm') o->m = v;
        else if (name[0] == 'n') o->n = v;
        else o->k = v;
    } else if (!strcmp(name, "reps")) {
        if (!parse_long(val, 1, 100000, &v)) {
            set_err(err, errlen, "--%s needs a whole number from 1 to 100000, got '%s'", name, val);
            return OPTIONS_ERROR;
        }
        o->reps = (int)v;
    } else if (!strcmp(name, "warmup")) {
        if (!parse_long(val, 0, 10000, &v)) {
            set_err(err, errlen, "--%s needs a whole number from 0 to 10000, got '%s'", name, val);
            return OPTIONS_ERROR;
        }
        o->warmup = (int)v;
    } else if (!strcmp(name, "seed")) {
        if (!parse_u64(val, &o->seed)) {
            set_err(err, errlen, "--%s needs a non-negative whole number, got '%s'", name, val);
            return OPTIONS_ERROR;
        }
    } else if (!strcmp(name, "only")) {
        if (val[0] == '\0') {
            set_err(err, errlen, "--%s needs kernel names%s", name, "");
            return OPTIONS_ERROR;
        }
        o->only = val;
    } else if (!strcmp(name, "trace")) {
        if (val[0] == '\0') {
            set_err(err, errlen, "--%s needs a file name%s", name, "");
            return OPTIONS_ERROR;
        }
        o->trace = val;
    } else if (!strcmp(name, "timeout")) {
        if (!parse_seconds(val, &o->timeout_s)) {
            set_err(err, errlen, "--%s needs seconds, more than 0 and at most 86400, got '%s'", name, val);
            return OPTIONS_ERROR;
        }
    } else if (!strcmp(name, "no-verify")) {
        o->verify = 0;
    } else if (!strcmp(name, "csv")) {
        o->csv = 1;
    } else if (!strcmp(name, "json")) {
        o->json = 1;
    } else if (!strcmp(name, "help")) {
        return OPTIONS_HELP;
    }
    return OPTIONS_OK;
}

options_status options_parse(int argc, char **argv, options *o, char *err, size_t errlen)
{
    int i;
    for (i = 1; i < argc; ++i) {
        const char *arg = argv[i], *val = NULL, *eq;
        char name[32];
        size_t len;
        int s;
        options_status st;
        if (!strcmp(arg, "-h")) return OPTIONS_HELP;
        if (strncmp(arg, "--", 2) != 0) {
            set_err(err, errlen, "unexpected argument '%s'%s (options start with --; try --help)", arg, "");
            return OPTIONS_ERROR;
        }
        arg += 2;
        eq = strchr(arg, '=');
        len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (len == 0 || len >= sizeof name) {
            set_err(err, errlen, "unknown option '%s'%s (try --help)", argv[i], "");
            return OPTIONS_ERROR;
        }
        memcpy(name, arg, len);
        name[len] = '\0';
        for (s = 0; s < NSPECS; ++s)
            if (!strcmp(specs[s].name, name) && dim_accepted(o, name)) break;
        if (s == NSPECS) {
            const int x = apply_extra(o, name, eq, argc, argv, &i, err, errlen);
            if (x > 0) continue;
            if (x < 0) return OPTIONS_ERROR;
            set_err(err, errlen, "unknown option '--%s'%s (try --help)", name, "");
            return OPTIONS_ERROR;
        }
        if (specs[s].takes_value) {
            if (eq) val = eq + 1;
            else if (i + 1 < argc) val = argv[++i];
            else {
                set_err(err, errlen, "--%s needs a value%s", name, "");
                return OPTIONS_ERROR;
            }
        } else if (eq) {
            set_err(err, errlen, "--%s takes no value%s", name, "");
            return OPTIONS_ERROR;
        }
        st = apply(o, name, val, err, errlen);
        if (st != OPTIONS_OK) return st;
    }
    if (o->csv && o->json) {
        set_err(err, errlen, "--csv and --json are exclusive%s%s", "", "");
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
    for (s = 0; s < NSPECS; ++s) {
        char def[64] = "";
        const char *n = specs[s].name;
        if (!dim_accepted(o, n)) continue;
        if (!strcmp(n, "m")) snprintf(def, sizeof def, " [%ld]", o->m);
        else if (!strcmp(n, "n")) snprintf(def, sizeof def, " [%ld]", o->n);
        else if (!strcmp(n, "k")) snprintf(def, sizeof def, " [%ld]", o->k);
        else if (!strcmp(n, "reps")) snprintf(def, sizeof def, " [%d]", o->reps);
        else if (!strcmp(n, "warmup")) snprintf(def, sizeof def, " [%d]", o->warmup);
        else if (!strcmp(n, "seed")) snprintf(def, sizeof def, " [%llu]", o->seed);
        else if (!strcmp(n, "timeout")) snprintf(def, sizeof def, " [%g]", o->timeout_s);
        else if (!strcmp(n, "only")) snprintf(def, sizeof def, " [all]");
        char flag[32];
        snprintf(flag, sizeof flag, "--%s%s", n, specs[s].takes_value ? " X" : "");
        fprintf(f, "  %-18s %s%s\n", flag, specs[s].help, def);
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
    size_t len = strlen(name);
    if (p == NULL) return 1;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t l = comma ? (size_t)(comma - p) : strlen(p);
        if (l == len && strncmp(p, name, len) == 0) return 1;
        if (!comma) break;
        p = comma + 1;
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
