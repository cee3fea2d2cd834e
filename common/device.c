/**
 * @file device.c
 * @brief Device query, capability checks, NaN poisoning.
 */
#include "device.h"
#include "check.h"

#include <string.h>

/* The driver's own version is not in the CUDA runtime API; on Linux the
 * kernel module reports it in its first line, whose wording varies
 * ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ..."):
 * take the first word that looks like a version number. */
static void read_driver_version(char *buf, size_t len)
{
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    char line[512];
    int v = 0;
    snprintf(buf, len, "unknown");
    if (f != NULL) {
        if (fgets(line, sizeof line, f) != NULL) {
            char *tok = strtok(line, " \t\n");
            for (; tok != NULL; tok = strtok(NULL, " \t\n")) {
                unsigned a, b;
                char tail;
                if (sscanf(tok, "%u.%u%c", &a, &b, &tail) >= 2 && strspn(tok, "0123456789.") == strlen(tok)) {
                    snprintf(buf, len, "%s", tok);
                    fclose(f);
                    return;
                }
            }
        }
        fclose(f);
    }
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        snprintf(buf, len, "cuda-api-%d.%d", v / 1000, (v % 1000) / 10);
}

void device_require(int major, int minor, const char *what, device_info *out)
{
    struct cudaDeviceProp p;
    int count = 0, rt = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        fprintf(stderr, "%s: no CUDA device found (cudaGetDeviceCount: %s). This program needs an NVIDIA GPU%s.\n", what,
                err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0",
                major > 0 ? " of compute capability 9.0 or higher" : "");
        exit(EXIT_UNSUPPORTED);
    }
    memset(out, 0, sizeof *out);
    CUDA_CHECK(cudaGetDevice(&out->id));
    CUDA_CHECK(cudaGetDeviceProperties(&p, out->id));
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->major = p.major;
    out->minor = p.minor;
    out->sms = p.multiProcessorCount;
    out->l2_bytes = p.l2CacheSize;
    CUDA_CHECK(cudaDeviceGetAttribute(&out->smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, out->id));
    CUDA_CHECK(cudaDeviceGetAttribute(&out->clock_mhz, cudaDevAttrClockRate, out->id));
    out->clock_mhz /= 1000;
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    snprintf(out->runtime, sizeof out->runtime, "%d.%d", rt / 1000, (rt % 1000) / 10);
    read_driver_version(out->driver, sizeof out->driver);
    if (p.major < major || (p.major == major && p.minor < minor)) {
        fprintf(stderr, "%s needs compute capability %d.%d or higher; %s is %d.%d.\n", what, major,
                minor, p.name, p.major, p.minor);
        exit(EXIT_UNSUPPORTED);
    }
}

void device_print(FILE *f, const device_info *d)
{
    fprintf(f, "device   : %s (sm_%d%d, %d SMs, %d MHz, L2 %d MB, driver %s, CUDA runtime %s)\n",
            d->name, d->major, d->minor, d->sms, d->clock_mhz, d->l2_bytes >> 20, d->driver,
            d->runtime);
}

void device_poison(void *p, size_t bytes)
{
    CUDA_CHECK(cudaMemset(p, 0xFF, bytes));
}
