# Chapter 04's test, benchmark and profile settings (sourced by tests/*.sh).
# A knob setting is KNOBS (comma-separated, for BENCH_KERNEL) or KERNEL:KNOBS.

# The work queue is an atomic add on global memory; the pipeline is chapter 03's.
PTX_MUST=('atom\.global\.add' 'mbarrier\.try_wait' 'cp\.async\.(cg|ca)\.shared\.global')
PTX_MUST_NOT=()
# The tensor-core kernel: chapter 03's, with the same queue.
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16' 'cp\.async\.cg\.shared\.global.*16'
             'setmaxnreg\.dec\.sync\.aligned\.u32 40' 'setmaxnreg\.inc\.sync\.aligned\.u32 232' 'atom\.global\.add')
PIPELINE_API=1
QUICK_SANITIZER=racecheck

# The GEMM shape tests leave the task demonstration out; the sanitizers
# run both parts, with fewer tasks.
SHAPE_ARGS=(--only warp_specialized,persistent,persistent_residual,persistent_storer,persistent_storer_residual,persistent_pingpong,cublas,warp_specialized_tc,persistent_tc,persistent_static_tc,cublas_bf16)
SANITIZE_ARGS=(--m 130 --n 200 --k 70 --tasks 50 --spawn-roots 20 --spawn-depth 30)
# Cases beyond the GEMM shapes: task counts (comma-separated arguments)...
# (spawn: a single task; a few narrow trees up to 1,000 deep; many shallow ones)
GPU_CASES=(--m=4096,--n=4096,--k=32,--only=persistent+persistent_residual+persistent_storer+persistent_storer_residual+persistent_pingpong+persistent_tc+persistent_static_tc
           --tasks=1,--only=tasks --tasks=7,--only=tasks --tasks=1000,--only=tasks
           --tasks=10000,--only=tasks,--reps=2
           --only=spawn,--spawn-roots=1,--spawn-depth=0 --only=spawn,--spawn-roots=5,--spawn-depth=1000
           --only=spawn,--spawn-roots=20000,--spawn-depth=20)
QUICK_CASES=(--tasks=7,--only=tasks --only=spawn,--spawn-roots=5,--spawn-depth=1000
             --m=4096,--n=4096,--k=32,--only=persistent+persistent_residual+persistent_storer+persistent_storer_residual+persistent_pingpong+persistent_tc+persistent_static_tc)
# A K loop shorter than the ring with more output tiles than resident blocks
# (the quick case above): each block takes several tiles and its producers
# run a whole tile ahead of its consumers, the only case where the tile
# number and the ticket hand-offs can go wrong. Under racecheck too (full
# tier): a tile number written before the stage's acquire shows there only.
SANITIZE_CASES=(racecheck:--m=2304,--n=4096,--k=32,--only=persistent+persistent_pingpong+persistent_tc+persistent_static_tc)
# ... and runs that must end with a given exit code (CODE:arguments)
GPU_EXIT_CASES=(1:--skip-reset,--only=tasks,--tasks=100)

BENCH_KERNEL=persistent
# spawn (tasks that create tasks) also on a wide tree whose depth bound is its depth
# and the ping-pong variant against the lesson and a storer where the epilogue is a large part of a tile (short K)
BENCH_DEMO_ARGS=(--only=spawn,--spawn-roots=2048,--spawn-depth=200
                 --only=persistent+persistent_storer+persistent_pingpong+cublas,--m=16384,--n=16384,--k=64)
BENCH_VARIANTS=(GROUP=1 GROUP=2 GROUP=4 GROUP=16 STAGES=3 STAGES=6 PRODUCER_WARPS=8
                persistent_storer:PRODUCER_WARPS=4,STORER_WARPS=4
                persistent_storer_residual:PRODUCER_WARPS=4,STORER_WARPS=4
                persistent_tc:TC_GROUP=1 persistent_tc:TC_GROUP=16 persistent_tc:TC_STAGES=3)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(GROUP=1 GROUP=2 GROUP=4 GROUP=16 STAGES=3 STAGES=6 PRODUCER_WARPS=8 persistent_storer:PRODUCER_WARPS=4,STORER_WARPS=4 persistent_storer_residual:PRODUCER_WARPS=4,STORER_WARPS=4 persistent_tc:TC_GROUP=1 persistent_tc:TC_GROUP=16)
# the tensor-core line at 8192^3 too, beside cuBLAS BF16
BENCH_ALSO_8192=warp_specialized_tc,persistent_tc,persistent_static_tc,cublas_bf16
# Storer warps hand C over through cuda::barriers, and with the residual
# fetch R into it with asynchronous copies: memcheck and racecheck on four
# storers too (the default build's variants, with one, run under all four tools).
SANITIZE_VARIANTS=(persistent_storer:PRODUCER_WARPS=4,STORER_WARPS=4
                   persistent_storer_residual:PRODUCER_WARPS=4,STORER_WARPS=4)

PROFILE_KERNELS=warp_specialized,persistent,persistent_residual,persistent_storer,cublas,warp_specialized_tc,persistent_tc,cublas_bf16
PROFILE_VARIANTS=(GROUP=1 GROUP=16 persistent_storer:PRODUCER_WARPS=4,STORER_WARPS=4)
# tests/sass_profile.sh: per-loop SASS counts and stall samples, chapter 03's kernel beside the lesson
SASS_KERNELS=warp_specialized,persistent

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=tasks,persistent,persistent_tc --m=4096 --n=4096 --k=256 --tasks=1000)
TRACE_TEST_ARGS=(--tasks 50)
TRACE_MUST=(fetch "wait empty" issue "wait full" compute store task)

# make check-04 and make grade-04 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel persistent' 'kernel_tc.cu kernel_tc persistent_tc'
             'variants.cu variants persistent_residual,persistent_storer,persistent_storer_residual'
             'pingpong.cu pingpong persistent_pingpong')
# 04.1: the ticket and a named barrier (two operands: id and thread count;
# __syncthreads() is bar.sync 0). 04.2: the stop stage's acquire and commit
# (4 waits: 2 producer acquires, 2 consumer waits; 2 commits), judged once
# 04.1 takes tickets (the starter's 04.1 leaves the copy loop out of the
# PTX); variants.cu holds three kernels (the counts are theirs together)
CHECK_PTX=('04.1 - atom\.global\.add' '04.1 - bar\.sync[[:space:]]+[^;]+,'
           '04.2 - mbarrier\.try_wait >=4 if:atom\.global\.add'
           '04.2 - cp\.async\.mbarrier\.arrive >=2 if:atom\.global\.add'
           '04.1 kernel_tc:- atom\.global\.add' '04.1 kernel_tc:- bar\.sync[[:space:]]+[^;]+,'
           '04.2 kernel_tc:- mbarrier\.try_wait >=4 if:atom\.global\.add'
           '04.2 kernel_tc:- cp\.async\.mbarrier\.arrive >=2 if:atom\.global\.add'
           '04.1 kernel_tc@TC_MMA=mma_sync:- atom\.global\.add'
           '04.1 kernel_tc@TC_MMA=mma_sync:- bar\.sync[[:space:]]+[^;]+,'
           '04.2 kernel_tc@TC_MMA=mma_sync:- mbarrier\.try_wait >=4 if:atom\.global\.add'
           '04.2 kernel_tc@TC_MMA=mma_sync:- cp\.async\.mbarrier\.arrive >=2 if:atom\.global\.add'
           '04.1 variants:- atom\.global\.add =3'
           '04.2 variants:- mbarrier\.try_wait >=18 if:atom\.global\.add'
           '04.2 variants:- cp\.async\.mbarrier\.arrive >=6 if:atom\.global\.add'
           '04.1 pingpong:- atom\.global\.add' '04.1 pingpong:- bar\.sync[[:space:]]+[^;]+,')
CHECK_GPU=("04.1 which threads take a ticket (one, or every producer: the same atomic)"
           "04.1@variants the named barrier (the storers' own named barriers are there too)"
           "04.3 the reset (host code, not in the kernel's PTX)")
# the GPU part runs the tensor-core kernel on its mma.sync path too
CHECK_BUILDS=('TC_MMA=mma_sync:persistent_tc')

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=2 STAGES=3 PRODUCER_WARPS=2 GROUP=4 STORER_WARPS=2 PINGPONG_STAGES=6 TC_BN=128
            TC_STAGES=3 TC_GROUP=4 TC_PRODUCER_REGS=56 TC_CONSUMER_REGS=224)
