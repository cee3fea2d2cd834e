# Chapter 03's test, benchmark and profile settings (sourced by tests/*.sh).

# Asynchronous copies, and the partitioned pipeline's mbarrier traffic
# instead of bar.sync in the main loop.
PTX_MUST=('cp\.async\.(cg|ca)\.shared\.global' 'mbarrier\.try_wait')
PTX_MUST_NOT=()
PIPELINE_API=1
QUICK_SANITIZER=racecheck

BENCH_KERNEL=warp_specialized
BENCH_VARIANTS=(PRODUCER_WARPS=1,STAGES=4 PRODUCER_WARPS=2,STAGES=4 PRODUCER_WARPS=4,STAGES=2
                PRODUCER_WARPS=4,STAGES=3 PRODUCER_WARPS=4,STAGES=6
                PRODUCER_WARPS=8,STAGES=4 PRODUCER_WARPS=8,STAGES=6 PRODUCER_WARPS=4,STAGES=4,BK=16
                PRODUCER_WARPS=1,STAGES=2,MIN_BLOCKS=2,BK=16
                warp_specialized_storer:PRODUCER_WARPS=4,STORER_WARPS=4)
# make test-gpu also runs these under memcheck and racecheck (the default
# build's storer variant, with one storer warp, runs under all four tools)
SANITIZE_VARIANTS=(warp_specialized_storer:PRODUCER_WARPS=4,STORER_WARPS=4)

PROFILE_KERNELS=double_buffer,warp_specialized,warp_specialized_storer,cublas
PROFILE_VARIANTS=(PRODUCER_WARPS=1 PRODUCER_WARPS=8)

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=warp_specialized --m=2048 --n=2048 --k=512)
TRACE_TEST_ARGS=()
TRACE_MUST=("wait empty" issue "wait full" compute store)

# make check-03 (tests/classroom/check.sh): the kernels a student's code
# is run as (--only), and per exercise what its code puts in the PTX of
# kernel.cu: "EXERCISE FUNCTION REGEX", FUNCTION "-" for the whole file or a
# part of a kernel's name to look in that kernel only.
CHECK_ONLY=warp_specialized
CHECK_PTX=('03.2 - cp\.async\.mbarrier\.arrive' '03.2 - mbarrier\.try_wait' '03.3 - mbarrier\.arrive\.shared')
