/**
 * @file matrix.h
 * @brief Seeded host matrices: the same seed gives the same inputs on every
 *        machine, and a new seed gives a fresh problem.
 */
#ifndef TUTORIAL_MATRIX_H
#define TUTORIAL_MATRIX_H

#include <stddef.h>
#include <stdint.h>

/** @brief The next value of a splitmix64 stream (small, fast, good enough for test data). */
uint64_t rng_next(uint64_t *state);

/**
 * @brief Fill @p x with @p count values drawn uniformly from [-1, 1].
 *
 * Values are multiples of 2^-23, so they are exact in FP32 and the same on
 * every platform. @p stream separates the inputs that share one seed
 * (A gets stream 0, B stream 1).
 */
void fill_uniform(float *x, size_t count, uint64_t seed, uint64_t stream);

/** @brief malloc() that prints a message and exits with ::EXIT_CUDA_ERROR when memory runs out. */
void *xmalloc(size_t bytes);

#endif
