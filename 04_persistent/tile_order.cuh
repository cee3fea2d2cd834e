/**
 * @file 04_persistent/tile_order.cuh
 * @brief The order in which chapter 04's persistent kernels visit output
 *        tiles: GROUP tile-rows at a time (TC_GROUP on the tensor-core
 *        line, whose kernels in 04, 06 and 07 walk their tiles this way).
 *
 * tile_coords() is there where GROUP is (chapter 04's knobs.h, or its
 * Makefile's -DGROUP).
 */
#ifndef CH04_TILE_ORDER_CUH
#define CH04_TILE_ORDER_CUH

/* The group knobs of both lines, checked once here. */
#ifdef GROUP
static_assert(GROUP >= 1, "GROUP must be at least 1");
#endif
#ifdef TC_GROUP
static_assert(TC_GROUP >= 1, "TC_GROUP must be at least 1");
#endif

/**
 * @brief Row and column of output tile number @p t in the grouped order,
 *        @p group tile-rows at a time.
 *
 * Tiles are numbered group tile-rows at a time, column by column inside a
 * group: 0 .. group-1 go down the first column of the group, then the next
 * column. The blocks running at one moment then share a few A panels (group
 * tile-rows) and a band of B panels, which stay in L2, instead of each
 * wave of tiles sweeping all of B. group = 1 is plain row-major order.
 */
// [swizzle]
__device__ __forceinline__ void grouped_tile_coords(int t, int tiles_m, int tiles_n, int group, int *tm, int *tn)
{
    const int per_group = group * tiles_n;
    const int first_m = (t / per_group) * group;
    const int rows = min(tiles_m - first_m, group); /* the last group may be shorter */
    *tm = first_m + (t % per_group) % rows;
    *tn = (t % per_group) / rows;
}
// [swizzle]

#ifdef GROUP
/** @brief Row and column of output tile number @p t in chapter 04's order: GROUP tile-rows at a time. */
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    grouped_tile_coords(t, tiles_m, tiles_n, GROUP, tm, tn);
}
#endif

#endif
