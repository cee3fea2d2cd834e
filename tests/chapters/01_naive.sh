# Chapter 01's test, benchmark and profile settings (sourced by tests/*.sh).
# Lists are bash arrays; a setting's knobs or arguments are comma-separated.

# PTX of the lesson kernel: 16-byte global loads and block barriers, and no
# asynchronous copies (this chapter is the synchronous baseline).
PTX_MUST=('ld\.global\.nc\.v4\.f32' 'bar\.sync')
PTX_MUST_NOT=('cp\.async')
# The tensor-core kernel (kernel_tc.cu): wgmma, fenced, committed and waited
# for, on tiles stored by ordinary stores (no cp.async yet).
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16' 'wgmma\.fence' 'wgmma\.commit_group'
             'wgmma\.wait_group' 'fence\.proxy\.async' 'st(\.shared)?\.v4\.u32')

# make test: the sanitizer tool of the quick tier
QUICK_SANITIZER=racecheck

# make bench (and make test-gpu verifies each): the blocked kernel's tile
# settings the default was chosen from
BENCH_KERNEL=blocked
BENCH_VARIANTS=(BM=128,BN=128,BK=8,MIN_BLOCKS=2 BM=128,BN=128,BK=16,MIN_BLOCKS=2
                BM=128,BN=128,BK=32,MIN_BLOCKS=2 BM=128,BN=128,BK=16,MIN_BLOCKS=1
                BM=128,BN=64,BK=16,MIN_BLOCKS=3 BM=64,BN=64,BK=16,MIN_BLOCKS=4
                BM=128,BN=256,BK=16,MIN_BLOCKS=1
                blocked_tc:TC_BN=256)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(BM=128,BN=128,BK=8,MIN_BLOCKS=2 BM=128,BN=128,BK=16,MIN_BLOCKS=2 BM=128,BN=128,BK=16,MIN_BLOCKS=1)
# the tensor-core line at 8192^3 too, beside cuBLAS BF16
BENCH_ALSO_8192=blocked_tc,cublas_bf16

# tests/profile.sh: kernels under Nsight Compute, in launch order
PROFILE_KERNELS=naive,tiled,blocked,cublas,blocked_tc,cublas_bf16

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=blocked,blocked_tc --m=2048 --n=2048 --k=512)
TRACE_TEST_ARGS=()
TRACE_MUST=(load sync compute store)

# make check-01 and make grade-01 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel blocked' 'blocked.cuh kernel blocked')
CHECK_PTX=('01.1 - ld\.global\.nc\.v4\.f32' '01.2 - bar\.sync >=2' '01.3 - ld\.shared\.v4\.f32')
CHECK_GPU=("01.1 the tiles' indices (a wrong row, column or k0 compiles to the same loads and stores)"
           "01.3 which values are read (ty for tx compiles to the same four 16-byte reads)")

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=1 TILE=16 TC_BN=256)
