# Chapter 03's test, benchmark and profile settings (sourced by tests/*.sh).

# Asynchronous copies, and the partitioned pipeline's mbarrier traffic
# instead of bar.sync in the main loop.
PTX_MUST=('cp\.async\.(cg|ca)\.shared\.global' 'mbarrier\.try_wait')
PTX_MUST_NOT=()
# The tensor-core kernel: cp.async producers, wgmma consumers, and the
# register split between them.
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16' 'cp\.async\.cg\.shared\.global.*16'
             'setmaxnreg\.dec\.sync\.aligned\.u32 40' 'setmaxnreg\.inc\.sync\.aligned\.u32 232' 'mbarrier\.try_wait')
PIPELINE_API=1
QUICK_SANITIZER=racecheck

BENCH_KERNEL=warp_specialized
BENCH_VARIANTS=(PRODUCER_WARPS=1,STAGES=4 PRODUCER_WARPS=2,STAGES=4 PRODUCER_WARPS=4,STAGES=2
                PRODUCER_WARPS=4,STAGES=3 PRODUCER_WARPS=4,STAGES=6
                PRODUCER_WARPS=8,STAGES=4 PRODUCER_WARPS=8,STAGES=6 PRODUCER_WARPS=4,STAGES=4,BK=16
                PRODUCER_WARPS=1,STAGES=2,MIN_BLOCKS=2,BK=16
                warp_specialized_storer:PRODUCER_WARPS=4,STORER_WARPS=4
                warp_specialized_tc:TC_STAGES=3 warp_specialized_tc:TC_BN=128)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(PRODUCER_WARPS=4,STAGES=3 PRODUCER_WARPS=4,STAGES=6 warp_specialized_tc:TC_STAGES=3)
# the tensor-core line at 8192^3 too, beside cuBLAS BF16
BENCH_ALSO_8192=double_buffer_tc,warp_specialized_tc,cublas_bf16
# make test-gpu also runs these under memcheck and racecheck (the default
# build's storer variant, with one storer warp, runs under all four tools)
SANITIZE_VARIANTS=(warp_specialized_storer:PRODUCER_WARPS=4,STORER_WARPS=4)

PROFILE_KERNELS=double_buffer,warp_specialized,warp_specialized_storer,cublas,double_buffer_tc,warp_specialized_tc,cublas_bf16
PROFILE_VARIANTS=(PRODUCER_WARPS=1 PRODUCER_WARPS=8)

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=warp_specialized,warp_specialized_tc --m=2048 --n=2048 --k=512)
TRACE_TEST_ARGS=()
TRACE_MUST=("wait empty" issue "wait full" compute store)

# make check-03 and make grade-03 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel warp_specialized' 'kernel_tc.cu kernel_tc warp_specialized_tc'
             'variants.cu variants warp_specialized_storer')
# 03.1: make_pipeline() with a role counts the producers with an atomic
# add on the shared state (without roles, or with a producer count, there
# is none); 03.2 and 03.3 as 02.1 and 02.2. The storer variant also waits
# on cuda::barriers (its storers' hand-off), so its rules look at the
# pipeline's waits alone (try_wait.parity)
CHECK_PTX=('03.1 - atom\.add\.relaxed\.cta'
           '03.2 - cp\.async\.mbarrier\.arrive' '03.2 - mbarrier\.try_wait before:cp\.async\.(cg|ca)'
           '03.3 - mbarrier\.try_wait after:cp\.async\.(cg|ca)'
           '03.3 - mbarrier\.arrive\.shared::cta after:ld\.shared\.v4'
           '03.1 kernel_tc:- atom\.add\.relaxed\.cta'
           '03.2 kernel_tc:- cp\.async\.mbarrier\.arrive' '03.2 kernel_tc:- mbarrier\.try_wait before:cp\.async\.cg'
           '03.3 kernel_tc:- mbarrier\.try_wait after:cp\.async\.cg'
           '03.3 kernel_tc:- mbarrier\.arrive\.shared::cta after:wgmma\.wait_group'
           '03.1 kernel_tc@TC_MMA=mma_sync:- atom\.add\.relaxed\.cta'
           '03.2 kernel_tc@TC_MMA=mma_sync:- cp\.async\.mbarrier\.arrive'
           '03.2 kernel_tc@TC_MMA=mma_sync:- mbarrier\.try_wait before:cp\.async\.cg'
           '03.3 kernel_tc@TC_MMA=mma_sync:- mbarrier\.try_wait after:cp\.async\.cg'
           '03.3 kernel_tc@TC_MMA=mma_sync:- mbarrier\.arrive\.shared::cta after:ldmatrix'
           '03.1 variants:- atom\.add\.relaxed\.cta'
           '03.2 variants:- cp\.async\.mbarrier\.arrive' '03.2 variants:- mbarrier\.try_wait\.parity before:cp\.async\.(cg|ca)'
           '03.3 variants:- mbarrier\.try_wait\.parity after:cp\.async\.(cg|ca)')
CHECK_GPU=("03.3@variants where the consumers release (the storers' barriers arrive after the reads too)")
# the GPU part runs the tensor-core kernel on its mma.sync path too
CHECK_BUILDS=('TC_MMA=mma_sync:warp_specialized_tc')

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=2 STAGES=3 PRODUCER_WARPS=2 STORER_WARPS=2 TC_BN=128 TC_STAGES=3 TC_PRODUCER_REGS=56 TC_CONSUMER_REGS=224)
