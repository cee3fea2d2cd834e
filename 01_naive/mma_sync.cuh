/**
 * @file 01_naive/mma_sync.cuh
 * @brief The tensor cores' warp-level instruction, `mma.sync` m16n8k16
 *        (BF16 in, FP32 accumulators), and `ldmatrix`, which feeds it from
 *        shared memory: every GPU from the A100 (sm_80) on has them, Hopper
 *        and Blackwell included. blocked_tc.cuh builds mma_tile() from them
 *        on every ARCH but sm_90a, where it uses wgmma (wgmma.cuh).
 *
 * One `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` is a warp's:
 * D (16 x 8, FP32) += A (16 x 16) x B (16 x 8), each operand spread over
 * the 32 lanes' registers in a fixed pattern, its "fragment" (PTX ISA,
 * "Matrix Fragments for mma.m16n8k16 with floating point type"): lane l
 * holds A's rows l/4 and l/4 + 8 at K columns 2(l%4), 2(l%4)+1 and those
 * + 8 (four registers of two BF16 each), B's K rows 2(l%4), 2(l%4)+1 and
 * those + 8 at column l/4 (two registers), and D's rows l/4 and l/4 + 8 at
 * columns 2(l%4), 2(l%4)+1 (four floats). The instruction is synchronous:
 * its result is in D when the next instruction reads it.
 *
 * `ldmatrix.x4` loads four 8 x 8 BF16 matrices into exactly that pattern:
 * lanes 8i to 8i+7 each give the address of one 16-byte row of matrix i,
 * and every lane receives its two elements of each matrix. A's tile rows
 * run along K, so its matrices are read as they lie; B's rows run along N,
 * so `.trans` delivers the transpose, which is B's fragment. The eight
 * rows of one matrix are read in one pass; they lie in rows r..r+7 of the
 * 128-byte swizzle (wgmma.cuh), where the same logical chunk sits at eight
 * different chunk positions, so the eight 16-byte reads hit all 32 banks
 * once: the swizzle that wgmma needs makes ldmatrix conflict-free too.
 */
#ifndef CH01_MMA_SYNC_CUH
#define CH01_MMA_SYNC_CUH

#include <stdint.h>

/**
 * @brief Four 8 x 8 BF16 matrices from shared memory into @p r, one per
 *        register, in mma.sync's fragment pattern: lane l passes @p addr,
 *        the shared-memory address of row l % 8 of matrix l / 8.
 */
__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/** @brief As ldmatrix_x4(), each matrix transposed on the way (for B, whose rows run along N). */
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], uint32_t addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr)
                 : "memory");
}

/** @brief d (16 x 8, FP32) += a (16 x 16, BF16) x b (16 x 8, BF16), the warp's fragments. */
__device__ __forceinline__ void mma_m16n8k16(float d[4], const uint32_t a[4], const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

#endif
