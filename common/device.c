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

/* No GPU, or no driver that can run it: say which, in words a student can act on. */
static void no_device(const char *label, cudaError_t err, int min_cc, const char *min_cc_for)
{
    FILE *drv = fopen("/proc/driver/nvidia/version", "r");
    fprintf(stderr, "%s: ", label);
    if (err == cudaErrorInsufficientDriver && drv != NULL)
        fprintf(stderr, "the NVIDIA driver is older than this CUDA runtime needs: update the driver");
    else if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || err == cudaSuccess)
        fprintf(stderr, "no NVIDIA GPU or driver found");
    else
        fprintf(stderr, "no usable NVIDIA GPU found");
    fprintf(stderr, " (cudaGetDeviceCount: %s).\nIt needs an NVIDIA GPU of compute capability %d.%d or higher, for %s; "
                    "`nvidia-smi` lists the GPUs the driver sees.\n",
            err == cudaSuccess ? "0 devices" : cudaGetErrorName(err), min_cc / 10, min_cc % 10, min_cc_for);
    if (drv != NULL) fclose(drv);
    exit(EXIT_UNSUPPORTED);
}

void device_require(const char *label, int min_cc, const char *min_cc_for, const char *built_arch,
                    device_info *out)
{
    struct cudaDeviceProp p;
    int count = 0, rt = 0, built = 0, cc;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) no_device(label, err, min_cc, min_cc_for);
    memset(out, 0, sizeof *out);
    CUDA_CHECK(cudaGetDevice(&out->id));
    CUDA_CHECK(cudaGetDeviceProperties(&p, out->id));
    snprintf(out->name, sizeof out->name, "%s", p.name);
    out->major = p.major;
    out->minor = p.minor;
    out->sms = p.multiProcessorCount;
    out->l2_bytes = p.l2CacheSize;
    CUDA_CHECK(cudaDeviceGetAttribute(&out->clock_mhz, cudaDevAttrClockRate, out->id));
    out->clock_mhz /= 1000;
    CUDA_CHECK(cudaRuntimeGetVersion(&rt));
    snprintf(out->runtime, sizeof out->runtime, "%d.%d", rt / 1000, (rt % 1000) / 10);
    read_driver_version(out->driver, sizeof out->driver);
    cc = p.major * 10 + p.minor;
    if (cc < min_cc) {
        fprintf(stderr, "%s needs compute capability %d.%d for %s; this GPU (%s) is %d.%d.\n", label,
                min_cc / 10, min_cc % 10, min_cc_for, p.name, p.major, p.minor);
        exit(EXIT_UNSUPPORTED);
    }
    /* Machine code for sm_XY runs on X.Y and later GPUs of the same major
     * version; an "a" target (sm_90a) runs on exactly that one. A plain
     * target's build carries its PTX as well, which the driver compiles for
     * any later GPU. */
    sscanf(built_arch, "sm_%d", &built);
    if (strchr(built_arch, 'a') == NULL && cc >= built && (p.major != built / 10 || p.minor < built % 10))
        snprintf(out->jit, sizeof out->jit, "compute_%d", built);
    else if (p.major != built / 10 || p.minor < built % 10 ||
             (strchr(built_arch, 'a') != NULL && p.minor != built % 10)) {
        fprintf(stderr, "%s: this build is for %s, which cannot run on this GPU (%s, compute capability %d.%d).\n"
                        "Rebuild for it: make clean && make (make picks ARCH from the GPU), or ARCH=sm_%d%d%s.\n",
                label, built_arch, p.name, p.major, p.minor, p.major, p.minor, p.major == 9 ? "a" : "");
        exit(EXIT_UNSUPPORTED);
    }
}

void device_print(FILE *f, const device_info *d)
{
    fprintf(f, "device   : %s (sm_%d%d, %d SMs, %d MHz, L2 %d MB, driver %s, CUDA runtime %s)\n",
            d->name, d->major, d->minor, d->sms, d->clock_mhz, d->l2_bytes >> 20, d->driver,
            d->runtime);
    if (d->jit[0])
        fprintf(f, "code     : the build's %s PTX, compiled by the driver for this GPU when the program started\n",
                d->jit);
}

void device_poison(void *p, size_t bytes)
{
    CUDA_CHECK(cudaMemset(p, 0xFF, bytes));
}

/* --smem-limit (0: none), and the last block smem_fits() refused */
static size_t smem_limit_set;
static size_t refused_need, refused_limit;

void smem_set_limit(size_t bytes)
{
    smem_limit_set = bytes;
}

size_t smem_limit(void)
{
    int dev, optin = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    return smem_limit_set != 0 && smem_limit_set < (size_t)optin ? smem_limit_set : (size_t)optin;
}

int smem_fits(size_t dynamic_bytes, size_t static_bytes)
{
    const size_t limit = smem_limit();
    if (dynamic_bytes + static_bytes <= limit) return 1;
    refused_need = dynamic_bytes + static_bytes;
    refused_limit = limit;
    return 0;
}

int smem_shortfall(size_t *need, size_t *limit)
{
    if (refused_need == 0) return 0;
    *need = refused_need;
    *limit = refused_limit;
    refused_need = refused_limit = 0;
    return 1;
}
