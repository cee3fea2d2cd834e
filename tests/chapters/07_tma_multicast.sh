# Chapter 07's test, benchmark and profile settings (sourced by tests/*.sh).

# One thread's bulk tensor copies, with and without multicast, completing on
# mbarriers that were told how many bytes to expect.
PTX_MUST=('cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes\.multicast::cluster'
          'cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes[[:space:]]'
          'mbarrier\.arrive\.expect_tx' 'barrier\.cluster\.arrive' 'mapa\.shared::cluster')
PTX_MUST_NOT=()
# The tensor-core kernel: TMA copies of swizzled boxes, B's parts multicast
# (its default cluster is 2 x 1), wgmma consumers releasing across the
# cluster; its TMA-store step (store_tc.cu): C stored by TMA from shared
# memory, with the split that carrying 5 boxes needs.
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16'
             'cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes\.multicast::cluster'
             'cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes[[:space:]]'
             'mbarrier\.arrive\.expect_tx' 'mbarrier\.arrive\.shared::cluster' 'setmaxnreg\.dec\.sync\.aligned\.u32 40')
PTX_MUST_STEP=('store_tc:setmaxnreg\.dec\.sync\.aligned\.u32 24'
               'store_tc:cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group'
               'store_tc:cp\.async\.bulk\.wait_group\.read')
QUICK_SANITIZER=racecheck

SHAPE_ARGS=(--only cluster,tma,tma_multicast,tma128_swizzled,tma128_transposed,tma128_fenced,cublas,cluster_tc,tma_multicast_tc,tma_store_tc,cublas_bf16)
# Exact multiples of the tile and of the cluster; a K that needs staging;
# more tensor-core cluster tiles than clusters, with a K loop too short to
# store all the boxes tma_store_tc carries from one tile to the next;
# and K loops of 1, 5, 9, 13 and 17 steps (TC_BK = 64) with blocks that take
# several tiles: the step counts where a carried box's catch-up at the
# loop's end is one off (it stores a box at steps 1, 5, 9, 13, 17).
GPU_CASES=(--m=256,--n=256,--k=256 --m=300,--n=260,--k=1001 --m=2304,--n=2048,--k=200
           --m=4096,--n=4096,--k=64,--only=tma_store_tc --m=4096,--n=4096,--k=320,--only=tma_store_tc
           --m=4096,--n=4096,--k=576,--only=tma_store_tc --m=4096,--n=4096,--k=832,--only=tma_store_tc
           --m=4096,--n=4096,--k=1088,--only=tma_store_tc)
QUICK_CASES=(--m=300,--n=260,--k=1001)

BENCH_KERNEL=tma_multicast
BENCH_VARIANTS=(CLUSTER_M=1,CLUSTER_N=2 CLUSTER_M=2,CLUSTER_N=2 CLUSTER_M=4,CLUSTER_N=1 STAGES=4 STAGES=6
                tma_multicast_tc:TC_CLUSTER=1 tma_multicast_tc:TC_CLUSTER=4 tma_multicast_tc:TC_GROUP=2
                tma_multicast_tc:TC_GROUP=16 tma_multicast_tc:TC_BN=128,TC_STAGES=6
                tma_store_tc:TC_CLUSTER=1 tma_store_tc:TC_BN=128,TC_STAGES=6 tma_store_tc:TC_DEFER=0)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(STAGES=4 STAGES=6 tma_multicast_tc:TC_GROUP=2 tma_multicast_tc:TC_GROUP=16 tma_store_tc:TC_DEFER=0)
# the tensor-core line at 8192^3 too, beside cuBLAS BF16
BENCH_ALSO_8192=cluster_tc,tma_multicast_tc,tma_store_tc,cublas_bf16
# Multicast along N (A shared) and both ways; the 128 x 128 variant with A
# multicast, whose slices are then whole 8-row swizzle blocks of a tile.
SANITIZE_VARIANTS=(CLUSTER_M=2,CLUSTER_N=2 CLUSTER_M=1,CLUSTER_N=2 tma128_swizzled:CLUSTER_M=1,CLUSTER_N=2
                   tma_multicast_tc:TC_CLUSTER=4 tma_store_tc:TC_CLUSTER=4 tma_store_tc:TC_DEFER=0)

PROFILE_KERNELS=cluster,tma,tma_multicast,tma128_swizzled,tma128_transposed,cublas,cluster_tc,tma_multicast_tc,tma_store_tc,cublas_bf16
PROFILE_VARIANTS=(CLUSTER_M=2,CLUSTER_N=2 CLUSTER_M=4,CLUSTER_N=1 tma_multicast_tc:TC_CLUSTER=1
                  tma_store_tc:TC_DEFER=0)
# Each TMA launch first runs the staging pass (transpose_pad): not profiled.
PROFILE_SKIP=transpose_pad
# tests/sass_profile.sh: per-loop SASS counts and stall samples, chapter 06's kernel and cuBLAS's beside the lesson
SASS_KERNELS=cluster,tma,tma_multicast,cublas

# --trace (TRACE=1 builds): the arguments of the committed trace's runs
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=tma,tma_multicast --m=2048 --n=2048 --k=512)
# tma_multicast_tc and tma_store_tc at a size where each block takes several
# tiles, with K steps enough to store every box the second carries from one
# tile into the next
TRACE_MORE_ARGS=(--only=tma_multicast_tc,tma_store_tc --m=4096 --n=4096 --k=1152)
TRACE_TEST_ARGS=()
TRACE_MUST=("cluster sync" "wait empty" issue "wait full" compute store)

# make check-07 and make grade-07 (tests/classroom/check.py). CHECK_FILES:
# each file that holds exercise regions, the file whose PTX holds its code
# (a header's is its includer's), and the kernels its regions run in (the
# GPU part runs each of them). CHECK_PTX: per exercise and per copy, what
# its code puts in that PTX: "EXERCISE [FILE:]FUNCTION REGEX [COUNT]
# [after:R] [before:R] [if:R]" (FILE: kernel, kernel_tc, variants, ...;
# FUNCTION "-" for the whole file or a part of a kernel's name; the syntax:
# the top of check.py); the counts are the lesson's at the default knobs,
# and tests/classroom/wrong/ has the mistakes each rule tells apart; every
# copy of every exercise has a rule or a CHECK_GPU line (a host test says
# so). CHECK_GPU, "EXERCISE[@FILE] what": what the PTX cannot show (its
# row says that the GPU part decides).
CHECK_FILES=('kernel.cu kernel tma,tma_multicast' 'variants.cu variants tma128_swizzled,tma128_transposed,tma128_fenced')
# the kernels again in a 2 x 2 cluster, where every bit of both masks matters
# (the default 2 x 1 never uses the row mask)
CHECK_BUILDS=('CLUSTER_M=2,CLUSTER_N=2:tma_multicast,tma128_swizzled')
# 07.1: in the 2 x 1 cluster of the default build the B mask is both
# blocks, the constant 3 (judged once 07.2 issues the multicast copy);
# 07.2: the arrive with the byte count, and the copies with multicast
CHECK_PTX=('07.1 - mov\.u16[[:space:]]+%rs[0-9]+,[[:space:]]+3; if:multicast::cluster'
           '07.2 - cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes'
           '07.2 - mbarrier\.arrive\.expect_tx' '07.2 - \.multicast::cluster'
           '07.1 variants:- mov\.u16[[:space:]]+%rs[0-9]+,[[:space:]]+3; if:multicast::cluster'
           '07.2 variants:- cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes'
           '07.2 variants:- mbarrier\.arrive\.expect_tx' '07.2 variants:- \.multicast::cluster')
CHECK_GPU=("07.1 the row mask (a 2 x 1 cluster never uses it: the GPU part's 2 x 2 build does)"
           "07.2 the byte count and the slices' offsets"
           "07.3 the tensor maps (host code, not in the kernel's PTX)")

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
# The 128 x 128 variants record their RING as STAGES=; the cluster's shape
# and the register split show as CLUSTER=MxN and REGS=P/C.
KNOBS_TEST=(STAGES=6 CLUSTER_M=1 CLUSTER_N=2 PRODUCER_REGS=56 CONSUMER_REGS=224 RING=3 TC_BN=128 TC_STAGES=3
            TC_CLUSTER=1 TC_GROUP=2 TC_PRODUCER_REGS=56 TC_CONSUMER_REGS=224 TC_DEFER=2)
KNOB_FORMS=('RING:STAGES=%v' 'CLUSTER_M:CLUSTER=%vx' 'CLUSTER_N:CLUSTER=[0-9]+x%v' 'PRODUCER_REGS:REGS=%v/'
            'CONSUMER_REGS:REGS=[0-9]+/%v')
# tma, the plain TMA kernel, is a 1 x 1 cluster whatever CLUSTER_N says
KNOB_FIXED=('CLUSTER_N:tma')
