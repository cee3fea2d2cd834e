/**
 * @file stats.h
 * @brief Summary statistics of repeated timings, and GEMM throughput.
 */
#ifndef TUTORIAL_STATS_H
#define TUTORIAL_STATS_H

/** @brief Median, minimum and maximum of a set of timings, in milliseconds. */
typedef struct {
    double median; /**< middle value (mean of the two middle ones for an even count) */
    double min;    /**< fastest run */
    double max;    /**< slowest run */
    int count;     /**< number of runs summarized */
} time_stats;

/**
 * @brief Summarize @p n timings. @p ms is left unchanged.
 * @return 0 on success, -1 when @p n < 1 or a value is negative or not finite
 */
int stats_summarize(const float *ms, int n, time_stats *out);

/** @brief TFLOP/s of an M x N x K GEMM (2MNK flops) that took @p ms milliseconds. */
double gemm_tflops(long m, long n, long k, double ms);

#endif
