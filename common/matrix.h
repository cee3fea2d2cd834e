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

/**
 * @brief Round @p count FP32 values to BF16 (to nearest, ties to even), as
 *        the tensor-core line's inputs: @p bits gets the 16-bit patterns the
 *        GPU reads, @p rounded the same values as FP32 (exact), for the
 *        host's checks. Either may be NULL.
 */
void round_to_bf16(const float *x, size_t count, uint16_t *bits, float *rounded);

/** @brief malloc() that prints a message and exits with ::EXIT_CUDA_ERROR when memory runs out. */
void *xmalloc(size_t bytes);

#endif
