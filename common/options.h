/**
 * @file options.h
 * @brief The command line shared by every chapter, parsed with the C
 *        library's getopt_long().
 *
 * Every chapter accepts the same options, so a student learns them once:
 * `--m --n --k --reps --warmup --seed --only --no-verify --csv --json
 * --trace --timeout --smem-limit --dump --check-dump --help`, plus the chapter's own (option_extra). Bad
 * input (zero, negative, non-numeric, overflowing values, unknown or
 * abbreviated flags, a missing value, a name --only does not know) is
 * rejected with a message, and the chapter exits with ::EXIT_USAGE before
 * touching the GPU.
 */
#ifndef TUTORIAL_OPTIONS_H
#define TUTORIAL_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

/** @brief Largest accepted matrix dimension (grid limits and int indexing). */
#define OPTIONS_MAX_DIM 262144L
/** @brief Largest accepted element count of any one matrix (int indexing). */
#define OPTIONS_MAX_ELEMENTS 2147483647L
/** @brief Most options of its own a chapter may add. */
#define OPTIONS_MAX_EXTRA 16

/**
 * @brief A chapter's own option, beyond the shared ones (e.g. `--tasks` in
 *        chapter 04): a whole number in [lo, hi], or a flag when lo == hi == 0.
 */
typedef struct {
    const char *name; /**< without the leading "--" */
    const char *help; /**< one line for --help */
    long lo;          /**< smallest accepted value */
    long hi;          /**< largest accepted value (lo == hi == 0: a flag, no value) */
    long value;       /**< the default on entry; the parsed value (flags: 1 when given) */
} option_extra;

/** @brief Parsed command line of a chapter run. */
typedef struct {
    long m;                  /**< rows of A and C */
    long n;                  /**< columns of B and C */
    long k;                  /**< columns of A, rows of B */
    int reps;                /**< timed repetitions per kernel */
    int warmup;              /**< untimed runs before timing */
    unsigned long long seed; /**< seed of the uniform[-1,1] inputs */
    int verify;              /**< 0 after --no-verify */
    int csv;                 /**< machine-readable CSV on stdout */
    int json;                /**< machine-readable JSON lines on stdout */
    const char *only;        /**< comma-separated names to run, or NULL for all */
    const char *trace;       /**< file for device-side timestamps, or NULL */
    double timeout_s;        /**< watchdog limit for each kernel's phase */
    long smem_limit;         /**< shared memory per block to allow, bytes (0: the GPU's own limit) */
    const char *dump;        /**< folder to write each kernel's first outputs to (dump.h), or NULL */
    const char *check_dump;  /**< folder of another run's outputs to check instead of running (dump.h), or NULL */
    int mnk;                 /**< 1: --m --n --k exist (0 for a chapter without matrices) */
    const char *names;       /**< what --only may name, space-separated (NULL: not checked) */
    option_extra *extra;     /**< the chapter's own options, or NULL */
    int nextra;              /**< number of entries in @p extra (at most ::OPTIONS_MAX_EXTRA) */
} options;

/** @brief Result of options_parse(). */
typedef enum {
    OPTIONS_OK = 0,   /**< parsed; run */
    OPTIONS_HELP,     /**< --help was given; print help and exit 0 */
    OPTIONS_ERROR     /**< bad input; the message is in the error buffer */
} options_status;

/**
 * @brief Fill @p o with the defaults (4096^3, 20 reps, 3 warm-ups, seed 1,
 *        60 s, --m/--n/--k on, no names, no extra options). A chapter then
 *        sets mnk, names, extra and nextra before options_parse().
 */
void options_defaults(options *o);

/**
 * @brief Parse @p argv into @p o (which should hold the defaults first).
 * @param argc, argv  the program's arguments; both `--m 64` and `--m=64` work
 * @param o     receives the values
 * @param err   receives a one-line message on ::OPTIONS_ERROR
 * @param errlen size of @p err
 * @return ::OPTIONS_OK, ::OPTIONS_HELP or ::OPTIONS_ERROR
 */
options_status options_parse(int argc, char **argv, options *o, char *err, size_t errlen);

/** @brief Print the option list (the chapter's own ones last) with the defaults in @p o. */
void options_print_help(FILE *f, const char *prog, const options *o);

/**
 * @brief Whether @p name is selected by `--only`.
 * @return 1 when `--only` is absent or lists @p name exactly, else 0
 */
int options_selects(const options *o, const char *name);

/** @brief Whether any of the space-separated @p names is selected by `--only`. */
int options_selects_any(const options *o, const char *names);

/** @brief The value of the chapter's option @p name (its default when not given); aborts if unknown. */
long options_extra_value(const options *o, const char *name);

#endif
