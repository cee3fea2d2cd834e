/**
 * @file 07_tma_multicast/demos/staging_demo.c
 * @brief Chapter 07: the cost of the staging pass the lesson's TMA kernels
 *        run before their copies: A^T, and B copied with 16-byte rows when
 *        N is not a multiple of 4. This times that
 *        pass alone, so the table's TMA rows (which include it) can be read
 *        against it, and beside it a device-to-device copy of A's bytes: the
 *        floor of any pass that reads A and writes it once.
 */
#include <string.h>

#include "../../common/check.h"
#include "../../common/exit_codes.h"
#include "../kernel.h"

typedef struct {
    int M, N, K;
    const float *A, *B;
    float *copy; /**< M x K floats: where the reference copy writes A */
} stage_args;

static cudaError_t run_stage(void *arg, cudaStream_t st)
{
    const stage_args *s = arg;
    const float *ap, *bp;
    size_t lda, ldb;
    return tma_stage(s->M, s->N, s->K, s->A, s->B, 1, &ap, &bp, &lda, &ldb, st);
}

static cudaError_t run_copy(void *arg, cudaStream_t st)
{
    const stage_args *s = arg;
    return cudaMemcpyAsync(s->copy, s->A, (size_t)s->M * s->K * sizeof(float), cudaMemcpyDeviceToDevice, st);
}

int staging_demo(chapter_env *env)
{
    stage_args s;
    report_row row[2];
    char knobs[96];
    float *a, *b;
    s.M = (int)env->o.m;
    s.N = (int)env->o.n;
    s.K = (int)env->o.k;
    CUDA_CHECK(cudaMalloc((void **)&a, (size_t)s.M * s.K * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&b, (size_t)s.K * s.N * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&s.copy, (size_t)s.M * s.K * sizeof(float)));
    /* Only the copy's time matters, but it must copy defined data (initcheck). */
    CUDA_CHECK(cudaMemset(a, 0, (size_t)s.M * s.K * sizeof(float)));
    CUDA_CHECK(cudaMemset(b, 0, (size_t)s.K * s.N * sizeof(float)));
    s.A = a;
    s.B = b;
    /* A: always transposed; B: padded, when its rows are not 16-byte multiples. */
    const int need = tma_needs_staging(s.N, s.K, s.A, s.B, 1);
    snprintf(knobs, sizeof knobs, "A_transposed%s", need & 2 ? " B_padded" : "");
    fprintf(env->out, "tensor maps: the TMA kernels first run a staging pass (%s):\n", knobs);
    /* Nothing to check here: the GEMM rows below verify the staged data. */
    run_checked(env, "tma_staging", knobs, run_stage, &s, NULL, NULL, NULL, &row[0]);
    run_checked(env, "copy_a", "cudaMemcpyAsync D2D of A", run_copy, &s, NULL, NULL, NULL, &row[1]);
    fprintf(env->out, "  staging alone: %.4f ms median (%.4f min); it is part of the tma rows' times below\n",
            row[0].t.median, row[0].t.min);
    fprintf(env->out, "  a device-to-device copy of A (the floor of a pass over it): %.4f ms median (%.4f min)\n\n",
            row[1].t.median, row[1].t.min);
    env->ctx.m = s.M;
    env->ctx.n = s.N;
    env->ctx.k = s.K;
    chapter_emit(env, row, 2);
    CUDA_CHECK(cudaFree(a));
    CUDA_CHECK(cudaFree(b));
    CUDA_CHECK(cudaFree(s.copy));
    return EXIT_VERIFIED;
}
