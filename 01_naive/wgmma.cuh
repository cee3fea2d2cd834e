/**
 * @file 01_naive/wgmma.cuh
 * @brief The tensor cores' instruction on Hopper, `wgmma.mma_async`, and
 *        what it needs: the 128-byte swizzled shared-memory layout of its
 *        operands, their descriptors, and the fence / commit / wait that
 *        order it. Chapter 01's blocked_tc (kernel_tc.cu) uses them, and
 *        the later chapters' tensor-core kernels include them from here.
 *
 * A warpgroup (4 consecutive warps, 128 threads) issues one wgmma together;
 * it multiplies a 64 x 16 tile of A by a 16 x N tile of B, both read from
 * shared memory by the tensor cores themselves, and adds the product to a
 * 64 x N FP32 accumulator spread over the 128 threads' registers. It is
 * asynchronous: the threads go on until wgmma_wait().
 *
 * The layout (PTX ISA, "Shared Memory Matrix Layout"): both tiles are kept
 * as rows of 128 bytes (64 BF16), in atoms of 8 rows = 1024 bytes, inside
 * which the 16-byte chunk c of row r sits at chunk c ^ (r % 8). A is
 * row-major M x K, so its tile rows run along K ("K-major"); B is
 * row-major K x N, so its rows run along N ("N-major", the instruction's
 * transpose-B bit), and a B tile wider than 64 columns is kept as panels
 * of 64 columns, one after the other. Why the swizzle: the tensor cores
 * read 8 rows' chunk c at once; unswizzled, the 8 chunks would sit 128
 * bytes apart, all in the same 4 of shared memory's 32 banks (8-way
 * conflicts); swizzled, they cover all 32.
 *
 * Only sm_90a has these instructions (not sm_90, and not Blackwell's
 * sm_100a, whose tensor cores take tcgen05.mma instead).
 */
#ifndef CH01_WGMMA_CUH
#define CH01_WGMMA_CUH

#include <stdint.h>

#include "../common/ptx.cuh" /* smem_addr(), fence_proxy_async() */

#define WG_THREADS 128      /**< threads of a warpgroup: wgmma's unit */
#define SW128_ROW_BYTES 128 /**< bytes of one swizzled row: 64 BF16 */
#define SW128_ATOM_BYTES 1024 /**< 8 rows: the swizzle's period; tiles start at multiples of it */

/** @brief Byte offset of 16-byte chunk @p chunk (0..7) of row @p row in a 128-byte swizzled tile. */
__device__ __forceinline__ uint32_t sw128_offset(int row, int chunk)
{
    return (uint32_t)(row * SW128_ROW_BYTES + ((chunk ^ (row & 7)) << 4));
}

/* The descriptor's fields (PTX ISA, "Matrix Descriptor Format"). */
#define DESC_ADDR_BITS 0x3FFFFu        /**< the address field keeps bits 4-17 of a shared-memory address (the 256 KB window) */
#define DESC_LBO_SHIFT 16               /**< bits 16-29: leading-dimension byte offset / 16 */
#define DESC_SBO_SHIFT 32               /**< bits 32-45: stride byte offset / 16 */
#define DESC_SWIZZLE_128B (1ull << 62)  /**< bits 62-63, the layout: 1 = 128-byte swizzle */

/**
 * @brief A shared-memory matrix descriptor, 128-byte swizzle (PTX ISA,
 *        "Matrix Descriptor Format"): the tile's address, and in bytes the
 *        leading-dimension offset (@p lbo) and the stride offset (@p sbo),
 *        all stored in 16-byte units.
 *
 * K-major (A): sbo is the distance between 8-row atoms (1024); lbo is not
 * used. N-major (B): sbo is the same 1024, lbo the distance between
 * 64-column panels. Advancing along K by 16 moves the address by 32 bytes
 * (A: within a row) or 2048 (B: 16 rows); the hardware applies the swizzle
 * to the final address, which is why tiles start at a multiple of 1024.
 */
__device__ __forceinline__ uint64_t wgmma_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & DESC_ADDR_BITS) >> 4) | (uint64_t)(lbo >> 4) << DESC_LBO_SHIFT |
           (uint64_t)(sbo >> 4) << DESC_SBO_SHIFT | DESC_SWIZZLE_128B;
}

/**
 * @brief Orders this warpgroup's earlier accesses to the registers wgmma
 *        uses (its accumulators) before the wgmma that follow. It does not
 *        order shared memory: a tile written with ordinary stores needs
 *        fence_proxy_async() for that.
 */
__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

/** @brief Closes a group of the wgmma issued since the last commit (wgmma_wait() counts groups). */
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/** @brief Waits until at most @p n committed groups are still running (n: a constant). */
#define wgmma_wait(n) asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(n) : "memory")

/**
 * @brief Tells the compiler that @p n accumulators may have changed here
 *        (after wgmma_wait()): wgmma writes them behind its back, so their
 *        reads must not move above the wait.
 */
__device__ __forceinline__ void wgmma_touch(float *d, int n)
{
#pragma unroll
    for (int i = 0; i < n; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

/* The operands after the two descriptors: scale-d, a predicate (0: d = A x B,
 * 1: d += A x B), then the immediates imm-scale-a and imm-scale-b (1: A and
 * B as they are; -1 negates), imm-trans-a (0: A K-major) and imm-trans-b
 * (1: B N-major, i.e. row-major B). */
#define WGMMA_SCALE_A "1" /**< imm-scale-a: A not negated */
#define WGMMA_SCALE_B "1" /**< imm-scale-b: B not negated */
#define WGMMA_TRANS_A "0" /**< imm-trans-a: A K-major, as it lies (row-major) */
#define WGMMA_TRANS_B "1" /**< imm-trans-b: B N-major (row-major B) */
#define WGMMA_IMMEDIATES WGMMA_SCALE_A ", " WGMMA_SCALE_B ", " WGMMA_TRANS_A ", " WGMMA_TRANS_B /**< the four, in order */

/**
 * @brief d (64 x 128, FP32) = A (64 x 16) x B (16 x 128) + (@p accumulate ? d : 0):
 *        A K-major and B N-major (row-major B: the instruction's
 *        transpose-B bit), both BF16 in shared memory behind descriptors.
 *        Asynchronous: d is not to be read before wgmma_wait().
 */
__device__ __forceinline__ void wgmma_m64n128k16(float d[64], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, " WGMMA_IMMEDIATES ";\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

/**
 * @brief d (64 x 256, FP32) = A (64 x 16) x B (16 x 256) + (@p accumulate ? d : 0):
 *        A K-major and B N-major (row-major B: the instruction's
 *        transpose-B bit), both BF16 in shared memory behind descriptors.
 *        Asynchronous: d is not to be read before wgmma_wait().
 */
__device__ __forceinline__ void wgmma_m64n256k16(float d[128], uint64_t desc_a, uint64_t desc_b, int accumulate)
{
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
        "%128, %129, p, " WGMMA_IMMEDIATES ";\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
}

/**
 * @brief Where accumulator @p i (of the 64 x N tile) of thread @p t
 *        (0..127) of the warpgroup lies: row and column (PTX ISA, the
 *        wgmma .m64nNk16 accumulator layout: each warp holds 16 rows, and
 *        every 8 columns hold 4 values per thread, two in a row).
 */
__device__ __forceinline__ void wgmma_acc_pos(int t, int i, int *row, int *col)
{
    *row = (t / 32) * 16 + (t % 32) / 4 + ((i / 2) & 1) * 8;
    *col = (i / 4) * 8 + (t % 4) * 2 + (i & 1);
}

#endif
