/**
 * @file 04_persistent/tile_order.cuh
 * @brief The order in which chapter 04's persistent kernels visit output
 *        tiles (kernel.cu and variants.cu): GROUP tile-rows at a time.
 *
 * Include after the tile macros (01_naive/blocked.cuh) and GROUP (knobs.h).
 */
#ifndef CH04_TILE_ORDER_CUH
#define CH04_TILE_ORDER_CUH

/**
 * @brief Row and column of output tile number @p t in the grouped order.
 *
 * Tiles are numbered GROUP tile-rows at a time, column by column inside a
 * group: 0 .. GROUP-1 go down the first column of the group, then the next
 * column. The blocks running at one moment then share a few A panels (GROUP
 * tile-rows) and a band of B panels, which stay in L2, instead of each
 * wave of tiles sweeping all of B. GROUP = 1 is plain row-major order.
 */
// [swizzle]
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int *tm, int *tn)
{
    const int per_group = GROUP * tiles_n;
    const int first_m = (t / per_group) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP); /* the last group may be shorter */
    *tm = first_m + (t % per_group) % rows;
    *tn = (t % per_group) / rows;
}
// [swizzle]

#endif
