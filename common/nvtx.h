/**
 * @file nvtx.h
 * @brief NVTX ranges, so Nsight Systems shows "reference", "blocked: time"
 *        and so on as named spans on its timeline. Header-only (NVTX 3);
 *        without a profiler attached they cost almost nothing.
 */
#ifndef TUTORIAL_NVTX_H
#define TUTORIAL_NVTX_H

#include <nvtx3/nvToolsExt.h>

/** @brief Open a named range on the calling thread's timeline. */
#define NVTX_PUSH(name) nvtxRangePushA(name)
/** @brief Close the innermost open range. */
#define NVTX_POP() nvtxRangePop()

#endif
