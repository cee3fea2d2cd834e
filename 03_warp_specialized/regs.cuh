/**
 * @file 03_warp_specialized/regs.cuh
 * @brief The register split of a warp-specialized block (`setmaxnreg`),
 *        introduced with the tensor-core kernel of this chapter; chapters
 *        04, 06 and 07 include it from here, on both lines.
 *
 * `__launch_bounds__(threads, 1)` caps every thread at LAUNCH_REGS(threads)
 * registers: the SM's 65,536 are four files of 16,384, one per warp
 * scheduler, warp w of a block lives on scheduler w % 4, and the cap is
 * what lets the fullest scheduler's warps fit its file (03's page derives
 * it). A warpgroup is 4 consecutive warps, one on each scheduler, so in a
 * block of whole warpgroups each scheduler holds one warp of every
 * warpgroup, and a split that fits the block's registers fits each
 * scheduler's. `setmaxnreg.dec` gives a warp's registers back to its
 * scheduler's pool; `setmaxnreg.inc` takes from it and waits until it
 * holds enough, never from registers the block was not launched with.
 *
 * `setmaxnreg` exists on the architecture-specific targets from Hopper on
 * (sm_90a, sm_100a, sm_120a: the PTX ISA's target notes), not on sm_80 to
 * sm_89: there every thread keeps LAUNCH_REGS, the split is not made, and
 * a chapter's defaults ask for no more (common/arch.mk's SETMAXNREG).
 */
#ifndef CH03_REGS_CUH
#define CH03_REGS_CUH

#ifndef TUTORIAL_SETMAXNREG
#error "TUTORIAL_SETMAXNREG: set by common/common.mk; build with make"
#endif

/**
 * @brief A split's two knobs in a kernel's knobs string (KNOB(), common/launch.cuh)
 *        where the build makes the split; elsewhere what it does instead.
 */
#if TUTORIAL_SETMAXNREG
#define REG_SPLIT_KNOBS(producer_regs, consumer_regs) KNOB(producer_regs) KNOB(consumer_regs)
#else
#define REG_SPLIT_KNOBS(producer_regs, consumer_regs) " REGS=none(no setmaxnreg)"
#endif

/** @brief Registers per thread of a one-block-per-SM kernel of @p threads (whole warpgroups): 65,536 / threads, rounded down to a multiple of 8. */
#define LAUNCH_REGS(threads) (65536 / (threads) / 8 * 8)

/**
 * @brief The one check of a split's two knobs, @p producer_regs for the
 *        producer warpgroup (@p producers threads) and @p consumer_regs for
 *        the rest of a block of @p threads: setmaxnreg takes multiples of 8
 *        from 24 to 256, `.dec` cannot raise nor `.inc` lower, and the
 *        split must fit the registers the block was launched with
 *        (`.inc` would wait forever). The chapters' Makefiles derive the
 *        consumers' default from the producers' (common.mk, split_consumer_regs).
 */
#define CHECK_REG_SPLIT(threads, producers, producer_regs, consumer_regs)                                         \
    static_assert((producer_regs) % 8 == 0 && (consumer_regs) % 8 == 0 && (producer_regs) >= 24 &&                \
                      (producer_regs) <= LAUNCH_REGS(threads) && (consumer_regs) >= LAUNCH_REGS(threads) &&      \
                      (consumer_regs) <= 256,                                                                    \
                  #producer_regs ", " #consumer_regs ": multiples of 8, 24 <= producers' <= launch's <= consumers' <= 256"); \
    static_assert((producers) * (producer_regs) + ((threads) - (producers)) * (consumer_regs) <=                 \
                      (threads) * LAUNCH_REGS(threads),                                                          \
                  #producer_regs ", " #consumer_regs ": the split needs more registers than the block was launched with")

/**
 * @brief Every thread of the calling warpgroup leaves with @p Regs
 *        registers, from the @p Launch it started with: fewer give the
 *        rest back to the scheduler's pool (`setmaxnreg.dec`), more take
 *        them from it, waiting until it holds enough (`setmaxnreg.inc`).
 */
template <int Regs, int Launch> __device__ __forceinline__ void warpgroup_set_registers()
{
#if defined(__CUDA_ARCH_SPECIFIC__) || defined(__CUDA_ARCH_FAMILY_SPECIFIC__) /* an sm_90a, sm_100a, ... build */
    if (Regs < Launch)
        asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
    else if (Regs > Launch)
        asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
#endif
}

#endif
