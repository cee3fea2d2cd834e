/**
 * @file 07_tma_multicast/carry.cuh
 * @brief The boxes of C that tma_store_tc (store_tc.cu) carries from one
 *        tile into the next: when it stores them (two small functions, which
 *        a host test checks at every K-step count: tests/unit/carry_test.c)
 *        and, in a build of the kernel, how many it carries.
 *
 * The protocol. At the end of a tile a warp stores its first boxes and
 * keeps its last `carried` in registers. During the next tile's K loop it
 * stores carried box d at K step 1 + d x `stride`, while that step's
 * multiplies run (carry_box_at()). At the end of that tile it stores the
 * carried boxes the loop did not reach, from carry_left_from() on, before
 * it carries the new tile's; after its last tile it stores all it carries.
 *
 * The invariant: every carried box is stored exactly once, and before the
 * registers that hold it take the next tile's boxes. It holds for any K
 * loop if `stride` >= 2 (a stride of 1 stores no box in the loop: step
 * 1 + d is never 1 mod 1); the test checks it for every K-step count, box
 * count and stride the kernel can be built with.
 *
 * How many (TC_DEFER set: a build of the kernel): the store boxes' sizes,
 * TC_CARRIED from the knob TC_DEFER, whose range this is the one home of,
 * and the register split that number needs.
 */
#ifndef CH07_CARRY_CUH
#define CH07_CARRY_CUH

#ifdef __CUDACC__
#define CARRY_FN __host__ __device__ __forceinline__ /**< the functions below: for the kernel, and for the host test */
#else
#define CARRY_FN static inline /**< (a C compiler: the host test) */
#endif

/** @brief The carried box that K step @p kt stores (of @p carried, one every @p stride steps), or -1: none. */
CARRY_FN int carry_box_at(int kt, int carried, int stride)
{
    return kt % stride == 1 && kt / stride < carried ? kt / stride : -1;
}

/**
 * @brief The first carried box a K loop of @p k_steps steps leaves
 *        unstored: the boxes from it to the last are stored at the tile's
 *        end (none where it is `carried` or more).
 */
CARRY_FN int carry_left_from(int k_steps, int stride)
{
    return (k_steps + stride - 2) / stride; /* the loop's steps 1, 1 + stride, ... below k_steps stored one each */
}

#ifdef TC_DEFER
#include "../01_naive/blocked_tc.cuh" /* TC_BN, TC_ACC, TC_CONSUMERS, TC_PANEL_COLS */

#define TC_C_BOX_COLS 32 /**< columns of C per store box: 128 bytes of FP32, the 128-byte swizzle's widest row */
#define TC_C_BOX_ROWS 16 /**< rows of C per store box: a 16 x 32 piece of a warpgroup's accumulators (tc_acc_pos()) */
#define TC_C_BOX_BYTES (TC_C_BOX_ROWS * TC_C_BOX_COLS * 4) /**< a store box: 2 KB */
#define TC_C_BOXES 2 /**< places for a box per warp in shared memory: one fills while TMA reads the other */
#define TC_C_STAGING (TC_CONSUMERS / 32 * TC_C_BOXES * TC_C_BOX_BYTES) /**< every consumer warp's boxes */
#define TC_C_TILE_BOXES (TC_BN / TC_C_BOX_COLS) /**< boxes a warp stores per tile: 64 x TC_BN / 4 warps / 512 */
#define TC_C_PER_BOX (TC_C_BOX_COLS / 2)        /**< accumulators a thread holds of one box */
/* One carried box every 4 K steps, from the second on: each has long been
 * read from its box when the next needs it, and the writes do not bunch. */
#define TC_DEFER_STRIDE 4 /**< K steps between two carried boxes' stores (at least 2: above) */
static_assert(TC_DEFER_STRIDE >= 2, "TC_DEFER_STRIDE: a stride of 1 stores no carried box in the K loop");

/* TC_DEFER's range. The carried values live in the consumers' registers
 * beside the accumulators. With wgmma, TC_CARRY_REG_BUDGET is the most of
 * both that built without spilling, one box less in a TRACE=1 build, whose
 * trace points take the registers. With mma.sync, ptxas keeps the
 * fragments of a whole tile's K steps in registers as well, and spills
 * with one box carried (TC_BN=256) or two (128). More than 4 boxes take the
 * most a consumer thread can have, 240, which leaves the producers 24:
 * enough for the one thread that issues copies unless it copies 4 panels of
 * B (TC_CLUSTER=1). So a warp carries fewer boxes than a tile has, no more
 * than its registers hold, and at most 4 where the producers copy 4
 * panels; TC_DEFER=-1 (the default) carries the most of those. */
#ifdef TUTORIAL_TRACE
#define TC_CARRY_REG_BUDGET (208 - TC_C_PER_BOX) /**< wgmma: registers for TC_ACC + the carried values */
#else
#define TC_CARRY_REG_BUDGET 208 /**< wgmma: registers for TC_ACC + the carried values */
#endif
#if TC_WGMMA
#define TC_DEFER_BY_REGS ((TC_CARRY_REG_BUDGET - TC_ACC) / TC_C_PER_BOX) /**< the most boxes the registers hold */
#else
#define TC_DEFER_BY_REGS (TC_BN == 128 ? 1 : 0) /**< the most boxes the registers hold (mma.sync) */
#endif
#define TC_DEFER_BY_SPLIT (TC_BN / TC_PANEL_COLS / TC_CLUSTER > 2 ? 4 : TC_C_TILE_BOXES) /**< the most the producers' split allows */
#define TC_DEFER_MOST_ (TC_DEFER_BY_REGS < TC_C_TILE_BOXES - 1 ? TC_DEFER_BY_REGS : TC_C_TILE_BOXES - 1) /**< the first two limits' least */
#define TC_DEFER_MOST (TC_DEFER_MOST_ < TC_DEFER_BY_SPLIT ? TC_DEFER_MOST_ : TC_DEFER_BY_SPLIT) /**< the most boxes a warp can carry */
static_assert(TC_DEFER >= -1 && TC_DEFER <= TC_DEFER_MOST,
              "TC_DEFER: -1 (the most), or 0 to TC_DEFER_MOST: fewer than TC_BN / 32, within the registers, 4 with TC_CLUSTER=1");
/* TC_CARRIED, the boxes a warp carries: TC_DEFER, or for -1 TC_DEFER_MOST,
 * spelled as a number for the knobs string (KNOB() records a literal). */
#if TC_DEFER >= 0
#define TC_CARRIED TC_DEFER /**< the boxes a warp carries */
#elif TC_DEFER_MOST == 0
#define TC_CARRIED 0
#elif TC_DEFER_MOST == 1
#define TC_CARRIED 1
#elif TC_DEFER_MOST == 2
#define TC_CARRIED 2
#elif TC_DEFER_MOST == 3
#define TC_CARRIED 3
#elif TC_DEFER_MOST == 4
#define TC_CARRIED 4
#elif TC_DEFER_MOST == 5
#define TC_CARRIED 5
#else
#error "TC_DEFER_MOST: a number this list does not spell"
#endif
#define TC_STORE_PRODUCER_REGS (TC_CARRIED > 4 ? 24 : TC_PRODUCER_REGS)  /**< what a producer thread keeps */
#define TC_STORE_CONSUMER_REGS (TC_CARRIED > 4 ? 240 : TC_CONSUMER_REGS) /**< what a consumer thread gets */
#endif

#endif
