/**
 * @file named_barrier_racecheck.cu
 * @brief Smallest hand-off between two warps through named barriers
 *        (`bar.sync id, 64`), to see what compute-sanitizer --tool racecheck
 *        reports for it (see docs/measuring.md, "racecheck and named barriers").
 *
 * Warp 0 writes a shared buffer, warp 1 reads it, ROUNDS times, with barrier
 * 1 meaning "full" and barrier 2 "empty". Each side calls bar.sync on both
 * barriers, at its own place in the code, as a producer and a consumer role
 * do. The hand-off is correct by the PTX rules (every access before a
 * bar.sync is performed relative to all threads that take part in it);
 * the program checks the values it read and exits 0 when they are right.
 * With `same_line` as argument both warps run the same bar.sync instruction
 * instead (the two roles meet at one line); with `idle_warp` the block has a
 * third warp that takes no part in the barriers (as the producer warps of
 * chapter 04 take no part in the consumer-storer hand-off).
 */
#include <stdio.h>
#include <string.h>

#define ROUNDS 4

__device__ __forceinline__ void bar_sync(int id, int n)
{
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory");
}

__global__ void hand_off(int *out, int same_line)
{
    __shared__ int buf[32];
    const int lane = threadIdx.x % 32;
    int sum = 0;
    for (int r = 0; r < ROUNDS && threadIdx.x < 64; ++r) {
        if (same_line) {
            if (threadIdx.x < 32) buf[lane] = r * 100 + lane;
            bar_sync(1, 64);
            if (threadIdx.x >= 32) sum += buf[lane];
            bar_sync(2, 64);
        } else if (threadIdx.x < 32) { /* producer */
            if (r > 0) bar_sync(2, 64); /* wait until the reader is done with the last round */
            buf[lane] = r * 100 + lane;
            bar_sync(1, 64); /* full */
        } else {                         /* consumer */
            bar_sync(1, 64);
            sum += buf[lane];
            if (r + 1 < ROUNDS) bar_sync(2, 64); /* empty */
        }
    }
    if (threadIdx.x >= 64) return; /* the idle warp */
    if (threadIdx.x >= 32) out[lane] = sum;
}

int main(int argc, char **argv)
{
    const int same_line = argc > 1 && strcmp(argv[1], "same_line") == 0;
    const int idle_warp = argc > 1 && strcmp(argv[1], "idle_warp") == 0;
    int *d, h[32], lane, ok = 1;
    cudaMalloc(&d, sizeof h);
    hand_off<<<1, idle_warp ? 96 : 64>>>(d, same_line);
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 4;
    for (lane = 0; lane < 32; ++lane)
        ok = ok && h[lane] == (0 + 100 + 200 + 300) + ROUNDS * lane;
    printf("%s: %s\n", same_line ? "same_line" : idle_warp ? "idle_warp" : "roles", ok ? "correct" : "WRONG");
    return ok ? 0 : 1;
}
