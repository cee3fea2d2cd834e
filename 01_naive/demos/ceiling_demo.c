/**
 * @file 01_naive/demos/ceiling_demo.c
 * @brief Chapter 01's first table: the instruction ceilings of this GPU
 *        (ceiling.cu), the rates the FP32 line (FFMA) and the tensor-core
 *        line (mma.sync, and wgmma on an sm_90a build) run against.
 */
#include "ceiling.h"

#include <stdint.h>
#include <stdlib.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../../common/matrix.h"

/* Loop trips: each launch takes a few milliseconds on an H100, longer on smaller GPUs. */
#define FFMA_ITERS 65536 /**< the FFMA kernel's loop trips */
#define MMA_ITERS 8192   /**< the mma.sync kernel's */
#define WGMMA_ITERS 8192 /**< the wgmma kernel's */

static cudaError_t run_ceiling(void *arg, cudaStream_t stream) { return launch_ceiling(arg, stream); }

/* The floating-point operations of one launch (an FMA is 2). */
static double ceiling_flops(const ceiling_run *r)
{
    const double threads = (double)r->blocks * r->threads;
    switch (r->which) {
    case CEILING_FFMA:
        return threads * r->iters * CEILING_FFMA_CHAINS * 2.0;
    case CEILING_MMA_SYNC:
        return threads / 32 * r->iters * CEILING_MMA_CHAINS * (16.0 * 8 * 16 * 2);
    default:
        return threads / 128 * r->iters * CEILING_WG_K_STEPS * (64.0 * 256 * 16 * 2);
    }
}

int ceiling_demo(chapter_env *env)
{
    static const char *names[] = {"ceiling_ffma", "ceiling_mma_sync", "ceiling_wgmma"};
    static const char *what[] = {"FFMA, FP32 (CUDA cores)", "mma.sync m16n8k16, BF16 in, FP32 acc.",
                                 "wgmma m64n256k16, BF16 in, FP32 acc."};
    const int iters[] = {FFMA_ITERS, MMA_ITERS, WGMMA_ITERS};
    /* mma.sync with BF16 needs sm_80; wgmma exists on sm_90a alone (common.mk) */
#ifdef TUTORIAL_TC
    const int count = TUTORIAL_HAVE_WGMMA ? 3 : 2;
#else
    const int count = 1;
#endif
    const size_t ffma_bytes = 1024, seed_bytes = ffma_bytes + CEILING_WGMMA_TILE_BYTES;
    report_row rows[3];
    ceiling_run r[3];
    char knobs[3][96];
    float *h = xmalloc(seed_bytes), *out;
    void *seed;
    int i, blocks_most = 0;

    /* Random inputs: uniform floats in [-1, 1] for FFMA; after them random
     * bits for the MMAs, read as pairs of BF16 whose exponent bits are kept
     * between 2^-31 and 2 (finite, and sums that stay far from overflow). */
    fill_uniform(h, seed_bytes / sizeof(float), env->o.seed, 7);
    for (i = (int)(ffma_bytes / sizeof(float)); i < (int)(seed_bytes / sizeof(float)); ++i)
        ((uint32_t *)h)[i] = (((uint32_t *)h)[i] & 0xBFFFBFFFu) | 0x30003000u;
    CUDA_CHECK(cudaMalloc(&seed, seed_bytes));
    CUDA_CHECK(cudaMemcpy(seed, h, seed_bytes, cudaMemcpyHostToDevice));
    for (i = 0; i < count; ++i) {
        r[i].which = i;
        r[i].seed = i == CEILING_FFMA ? seed : (const char *)seed + ffma_bytes;
        r[i].iters = iters[i];
        CUDA_CHECK(ceiling_grid(i, &r[i].blocks, &r[i].threads, &r[i].smem));
        if (r[i].blocks * r[i].threads > blocks_most) blocks_most = r[i].blocks * r[i].threads;
    }
    CUDA_CHECK(cudaMalloc((void **)&out, (size_t)blocks_most * sizeof(float)));
    fprintf(env->out, "ceilings : each instruction back to back from registers (FFMA, mma.sync) or shared memory "
                      "(wgmma),\n           random data, no global memory in the loop, every SM full\n");
    for (i = 0; i < count; ++i) {
        r[i].out = out;
        snprintf(knobs[i], sizeof knobs[i], "blocks=%d threads=%d iters=%d", r[i].blocks, r[i].threads, r[i].iters);
        run_checked(env, names[i], knobs[i], run_ceiling, &r[i], NULL, NULL, NULL, &rows[i]);
        rows[i].tflops = ceiling_flops(&r[i]) / (rows[i].t.median * 1e9);
    }
    fprintf(env->out, "\n  %-40s %10s %14s %11s\n", "instruction", "TFLOP/s", "FLOP/clk/SM", "median ms");
    for (i = 0; i < count; ++i)
        fprintf(env->out, "  %-40s %10.1f %14.0f %11.3f\n", what[i], rows[i].tflops,
                rows[i].tflops * 1e12 / (env->dev.sms * env->dev.clock_mhz * 1e6), rows[i].t.median);
    fprintf(env->out, "  (per clock at the %d MHz the driver reports; the clock under load may be lower)\n\n",
            env->dev.clock_mhz);
    env->ctx.m = env->ctx.n = env->ctx.k = 0;
    chapter_emit(env, rows, count);
    CUDA_CHECK(cudaFree(seed));
    CUDA_CHECK(cudaFree(out));
    free(h);
    return EXIT_VERIFIED;
}
