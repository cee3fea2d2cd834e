/**
 * @file device.h
 * @brief Device query and capability requirements.
 */
#ifndef TUTORIAL_DEVICE_H
#define TUTORIAL_DEVICE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief What a chapter needs to know (and print) about the GPU it runs on. */
typedef struct {
    int id;                 /**< CUDA device ordinal */
    char name[256];         /**< e.g. "NVIDIA H100 80GB HBM3" */
    int major;              /**< compute capability, major part */
    int minor;              /**< compute capability, minor part */
    int sms;                /**< multiprocessor count */
    int l2_bytes;           /**< L2 cache size */
    int clock_mhz;          /**< SM clock the driver reports */
    char driver[64];        /**< kernel driver version, e.g. "580.159.04" */
    char runtime[32];       /**< CUDA runtime version, e.g. "13.0" */
    char jit[16];           /**< "compute_80" where the driver compiles the build's PTX for this GPU; "" where the build has its machine code */
} device_info;

/**
 * @brief Find the GPU and check that this program can run on it.
 *
 * Exits with ::EXIT_UNSUPPORTED and a message that names what is missing:
 * no GPU or no driver (with a hint to try `nvidia-smi`), a compute
 * capability below @p min_cc, or a GPU this build has no code for (built
 * for sm_90a, run on an sm_86 GPU). A build for a plain target carries its
 * PTX too (common.mk), which the driver compiles for a GPU of a later
 * architecture when the program starts (an sm_80 build on an H100: @p out's
 * jit says so).
 * @param label       who needs it, for the messages (e.g. "chapter 02")
 * @param min_cc      the lowest compute capability accepted, as digits (80 = 8.0)
 * @param min_cc_for  what needs it (e.g. "cp.async")
 * @param built_arch  the target the kernels were compiled for (e.g. "sm_90a")
 * @param out         receives the device's properties
 */
void device_require(const char *label, int min_cc, const char *min_cc_for, const char *built_arch,
                    device_info *out);

/** @brief One line: name, compute capability, SMs, L2, driver and runtime. */
void device_print(FILE *f, const device_info *d);

/** @brief Fill @p bytes of device memory with 0xFF bytes: every float becomes NaN. */
void device_poison(void *p, size_t bytes);

/**
 * @brief Pretend the GPU lets a block have at most @p bytes of shared
 *        memory (./run --smem-limit), so that a smaller part's settings
 *        can be tried on a larger GPU; 0: the GPU's own limit.
 */
void smem_set_limit(size_t bytes);

/** @brief The shared memory one block may have here: the GPU's opt-in limit, or --smem-limit's if lower. */
size_t smem_limit(void);

/**
 * @brief Whether a block with @p dynamic_bytes of dynamic and
 *        @p static_bytes of static shared memory fits smem_limit(); when
 *        not, the shortfall is kept for smem_shortfall().
 */
int smem_fits(size_t dynamic_bytes, size_t static_bytes);

/**
 * @brief The last launch smem_fits() refused: its need and the limit, in
 *        bytes; 0 if there was none since the last call (which clears it).
 */
int smem_shortfall(size_t *need, size_t *limit);

#ifdef __cplusplus
}
#endif

#endif
