/**
 * @file device.h
 * @brief Device query and capability requirements.
 */
#ifndef TUTORIAL_DEVICE_H
#define TUTORIAL_DEVICE_H

#include <stddef.h>
#include <stdio.h>

/** @brief What a chapter needs to know (and print) about the GPU it runs on. */
typedef struct {
    int id;                 /**< CUDA device ordinal */
    char name[256];         /**< e.g. "NVIDIA H100 80GB HBM3" */
    int major;              /**< compute capability, major part */
    int minor;              /**< compute capability, minor part */
    int sms;                /**< multiprocessor count */
    int l2_bytes;           /**< L2 cache size */
    int smem_optin;         /**< largest dynamic shared memory a block may opt in to */
    int clock_mhz;          /**< SM clock the driver reports */
    char driver[64];        /**< kernel driver version, e.g. "580.159.04" */
    char runtime[32];       /**< CUDA runtime version, e.g. "13.0" */
} device_info;

/**
 * @brief Find the GPU and check its compute capability.
 *
 * Exits with ::EXIT_UNSUPPORTED and a clear message when there is no CUDA
 * device or its compute capability is below @p major.@p minor.
 * @param major, minor  the lowest compute capability accepted (0, 0: any)
 * @param what  who needs it, for the message (e.g. "chapter 06")
 * @param out   receives the device's properties
 */
void device_require(int major, int minor, const char *what, device_info *out);

/** @brief One line: name, compute capability, SMs, L2, driver and runtime. */
void device_print(FILE *f, const device_info *d);

/** @brief Fill @p bytes of device memory with 0xFF bytes: every float becomes NaN. */
void device_poison(void *p, size_t bytes);

#endif
