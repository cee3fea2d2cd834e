/**
 * @file matrix.c
 * @brief Deterministic uniform[-1,1] inputs.
 */
#include "matrix.h"
#include "exit_codes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill_uniform(float *x, size_t count, uint64_t seed, uint64_t stream)
{
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + stream * 0x9E3779B97F4A7C15ull + 1;
    size_t i;
    for (i = 0; i < count; ++i) {
        /* 24 random bits -> an integer in [0, 2^24) -> [-1, 1) in steps of 2^-23 */
        int64_t r = (int64_t)(rng_next(&state) >> 40);
        x[i] = (float)((double)(r - (1 << 23)) / (double)(1 << 23));
    }
}

void round_to_bf16(const float *x, size_t count, uint16_t *bits, float *rounded)
{
    size_t i;
    for (i = 0; i < count; ++i) {
        uint32_t u, r;
        memcpy(&u, &x[i], sizeof u);
        /* BF16 is FP32's top 16 bits; add half an ulp of them, plus one
         * when the kept part is odd, so that ties go to even. (Our inputs
         * are finite: no NaN case.) */
        r = (u + 0x7FFFu + ((u >> 16) & 1u)) & 0xFFFF0000u;
        if (bits) bits[i] = (uint16_t)(r >> 16);
        if (rounded) memcpy(&rounded[i], &r, sizeof r);
    }
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (asked for %zu bytes)\n", bytes);
        exit(EXIT_CUDA_ERROR);
    }
    return p;
}
