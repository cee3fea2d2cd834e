/**
 * @file pipeline_synccheck.cu
 * @brief Smallest use of a block-scoped cuda::pipeline, to see what
 *        compute-sanitizer --tool synccheck reports for the library's own
 *        pattern (see docs/measuring.md, "synccheck and cuda::pipeline").
 *
 * One stage, one tile: every thread acquires, optionally copies one float
 * with cuda::memcpy_async, commits, waits, reads and releases, exactly once.
 * Usage: pipeline_synccheck copy|nocopy|partitioned; exits 0 when the
 * result is right.
 */
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <stdio.h>
#include <string.h>

namespace cg = cooperative_groups;

__global__ void one_stage(const float *in, float *out, int copy, int partitioned)
{
    __shared__ float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
#pragma nv_diag_default static_var_with_dynamic_init
    const bool producer = threadIdx.x < 32;
    auto pipe = partitioned ? cuda::make_pipeline(cg::this_thread_block(), &state,
                                                  producer ? cuda::pipeline_role::producer
                                                           : cuda::pipeline_role::consumer)
                            : cuda::make_pipeline(cg::this_thread_block(), &state);
    if (!partitioned || producer) {
        pipe.producer_acquire();
        for (int i = threadIdx.x; i < 256; i += partitioned ? 32 : 256) {
            if (copy) cuda::memcpy_async(&buf[i], &in[i], cuda::aligned_size_t<4>(4), pipe);
            else buf[i] = in[i];
        }
        pipe.producer_commit();
    }
    if (!partitioned || !producer) {
        pipe.consumer_wait();
        const int i = threadIdx.x % 256;
        out[threadIdx.x] = buf[i] + buf[(i + 1) % 256];
        pipe.consumer_release();
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "copy";
    const int copy = strcmp(mode, "nocopy") != 0, partitioned = strcmp(mode, "partitioned") == 0;
    const int threads = partitioned ? 288 : 256;
    float h[256], r[288], *in, *out;
    for (int i = 0; i < 256; ++i) h[i] = (float)i;
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof r);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    one_stage<<<1, threads>>>(in, out, copy, partitioned);
    if (cudaDeviceSynchronize() != cudaSuccess) return 4;
    cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    for (int t = partitioned ? 32 : 0; t < threads; ++t)
        if (r[t] != h[t % 256] + h[(t + 1) % 256]) { printf("%s: wrong at %d\n", mode, t); return 1; }
    printf("%s: correct\n", mode);
    return 0;
}
