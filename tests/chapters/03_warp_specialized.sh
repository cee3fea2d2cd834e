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

# make check-03 (tests/classroom/check.sh): the kernels a student's code
# is run as (--only), and per exercise what its code puts in the PTX of
# kernel.cu: "EXERCISE FUNCTION REGEX [COUNT] [after:R] [before:R] [if:R]",
# FUNCTION "-" for the whole file or a part of a kernel's name to look in
# that kernel only (the syntax: the top of tests/classroom/check.sh). The
# counts are the lesson's at the default knobs; tests/classroom/wrong/ has
# the mistakes each rule tells apart. CHECK_GPU: what of an exercise the
# PTX cannot show (its row says that the GPU part decides).
CHECK_ONLY=warp_specialized
# 03.1: make_pipeline() with a role counts the producers with an atomic
# add on the shared state (without roles, or with a producer count, there
# is none); 03.2 and 03.3 as 02.1 and 02.2
CHECK_PTX=('03.1 - atom\.add\.relaxed\.cta'
           '03.2 - cp\.async\.mbarrier\.arrive' '03.2 - mbarrier\.try_wait before:cp\.async\.(cg|ca)'
           '03.3 - mbarrier\.try_wait after:cp\.async\.(cg|ca)'
           '03.3 - mbarrier\.arrive\.shared::cta after:ld\.shared\.v4')

# The knobs test: every knob away from its default (tests/run.sh knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=2 STAGES=3 PRODUCER_WARPS=2 STORER_WARPS=2 TC_BN=128 TC_STAGES=3)
