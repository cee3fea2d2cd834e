/**
 * @file report.h
 * @brief One aligned table for people; CSV or JSON lines for scripts.
 *
 * The CSV columns are the ones `docs/results/<gpu>.csv` uses, so
 * `./run --csv` output can be appended to the results file as it is.
 */
#ifndef TUTORIAL_REPORT_H
#define TUTORIAL_REPORT_H

#include <stdio.h>
#include "stats.h"

/** @brief Where and on what a run happened (the leading CSV columns). */
typedef struct {
    const char *gpu;     /**< device name */
    const char *driver;  /**< driver version */
    const char *cuda;    /**< CUDA runtime version */
    const char *commit;  /**< source commit ($TUTORIAL_COMMIT), or "unknown" */
    const char *date;    /**< UTC date and time of the run */
    const char *chapter; /**< e.g. "01_naive" */
    long m;              /**< rows of C */
    long n;              /**< columns of C */
    long k;              /**< reduction length */
} report_context;

/** @brief One kernel's line in the report. */
typedef struct {
    const char *kernel;   /**< kernel name, e.g. "blocked" */
    const char *knobs;    /**< compile-time settings, e.g. "BM=128 BN=128 BK=16" */
    time_stats t;         /**< timings in ms */
    double tflops;        /**< from the median time, or < 0 when not a GEMM (CSV: NA) */
    double pct_cublas;    /**< 100 * t_cublas / t, or < 0 when cuBLAS did not run */
    double speedup_prev;  /**< t_previous_row / t, or < 0 for the first row */
    const char *verified; /**< "yes", "NO" or "skipped" */
} report_row;

/** @brief Print the aligned table of @p n rows. */
void report_table(FILE *f, const report_row *rows, int n);

/**
 * @brief Print the table of a demonstration that is not a GEMM: each row's
 *        time per item (@p count items of kind @p per, e.g. 1000 "task"s) and
 *        its speedup over the first row. Rows' tflops and pct_cublas are
 *        unused (set them < 0: the CSV then says NA).
 */
void report_demo_table(FILE *f, const report_row *rows, int n, long count, const char *per);

/** @brief Print @p n rows as CSV, preceded by the header line when @p header is set. */
void report_csv(FILE *f, const report_context *c, const report_row *rows, int n, int header);

/** @brief Print @p n rows as JSON objects, one per line. */
void report_json(FILE *f, const report_context *c, const report_row *rows, int n);

#endif
