/**
 * @file launch.cuh
 * @brief Two small things every chapter's launchers need: STR() to print a
 *        knob's value, and the opt-in to more than 48 KB of dynamic shared
 *        memory.
 */
#ifndef TUTORIAL_LAUNCH_CUH
#define TUTORIAL_LAUNCH_CUH

#include <cuda_runtime.h>

#define STR_(x) #x      /**< @brief helper of STR() */
#define STR(x) STR_(x) /**< @brief a macro's value as a string, for the knob strings */

/**
 * @brief Let @p kernel launch with @p bytes of dynamic shared memory.
 *
 * Up to 48 KB needs nothing; above it a kernel must opt in, or its launch
 * fails (the most a block may have is the device's
 * cudaDevAttrMaxSharedMemoryPerBlockOptin, 227 KB on Hopper). The call is
 * a cheap host-side attribute update, so launchers make it every time.
 */
static inline cudaError_t smem_opt_in(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

#endif
