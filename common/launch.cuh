/**
 * @file launch.cuh
 * @brief What every chapter's launchers share: KNOB() to record a knob's
 *        name and value, the opt-in to more than 48 KB of dynamic shared memory
 *        (after checking that the GPU has that much), and SMEM_REPORT()
 *        for `make smem`.
 */
#ifndef TUTORIAL_LAUNCH_CUH
#define TUTORIAL_LAUNCH_CUH

#include <cuda_runtime.h>

#include "device.h" /* smem_fits() */

#define STR_(x) #x      /**< @brief helper of STR() */
#define STR(x) STR_(x) /**< @brief a macro's value as a string */
/**
 * @brief " NAME=value" for a knob, the Makefile's -DNAME=value read back:
 *        a kernel's knobs string is the KNOB()s of the knobs it reads
 *        (the harness drops the leading space).
 */
#define KNOB(name) " " #name "=" STR(name)

/**
 * @brief `make smem`'s record of a launcher: the kernel's name (as --only
 *        names it) and the dynamic shared memory per block it asks for.
 *
 * Written at file scope beside the launcher, with the same size macro the
 * launcher passes. It expands to nothing in a build; `make smem`
 * (common/smem.sh) defines TUTORIAL_SMEM_REPORT, preprocesses the file with
 * the chapter's knobs for the ARCH given and prints the figure.
 */
#ifdef TUTORIAL_SMEM_REPORT
#define SMEM_REPORT(name, bytes) tutorial_smem_row(#name, bytes);
#else
#define SMEM_REPORT(name, bytes)
#endif

/**
 * @brief Let @p kernel launch with @p bytes of dynamic shared memory, if
 *        the GPU has that much for one block.
 *
 * The most a block may have is the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin (227 KB on Hopper, 163 KB on an
 * A100, 99 KB on an RTX 40), static and dynamic together. Where the kernel
 * needs more, this returns cudaErrorNotSupported and smem_fits() has
 * recorded the shortfall, which the harness reports (exit 3) instead of
 * the launch's opaque error. Up to 48 KB needs no opt-in; above it a
 * kernel must opt in, or its launch fails. Both are cheap host-side calls,
 * so launchers make them every time.
 */
static inline cudaError_t smem_opt_in(const void *kernel, size_t bytes)
{
    cudaFuncAttributes fa;
    cudaError_t err = cudaFuncGetAttributes(&fa, kernel);
    if (err != cudaSuccess) return err;
    if (!smem_fits(bytes, fa.sharedSizeBytes)) return cudaErrorNotSupported;
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

#endif
