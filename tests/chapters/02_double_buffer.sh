# Chapter 02's test, benchmark and profile settings (sourced by tests/*.sh).

# The copies are asynchronous: cp.async in the PTX (LDGSTS in SASS), both the
# 16-byte and the 4-byte form.
PTX_MUST=('cp\.async\.(cg|ca)\.shared\.global.*16' 'cp\.async\.ca\.shared\.global.*4')
PTX_MUST_NOT=()
# The tensor-core kernel: wgmma on tiles that cp.async brings in, the ring's
# barriers (cuda::pipeline) counting the copies.
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16' 'cp\.async\.cg\.shared\.global.*16'
             'cp\.async\.mbarrier\.arrive' 'wgmma\.wait_group')
# Uses cuda::pipeline: synccheck may report only the library's known
# 'Missing wait' at producer_commit (tests/run.sh, sanitize_pipeline).
PIPELINE_API=1
QUICK_SANITIZER=racecheck

BENCH_KERNEL=double_buffer
BENCH_VARIANTS=(BK=8,STAGES=2 BK=8,STAGES=3 BK=16,STAGES=2 BK=16,STAGES=3
                BK=32,STAGES=2 BK=32,STAGES=3 BK=32,STAGES=4
                double_buffer_tc:TC_STAGES=2 double_buffer_tc:TC_STAGES=4 double_buffer_tc:TC_BN=256,TC_STAGES=4)
# the tensor-core line at 8192^3 too, beside cuBLAS BF16
BENCH_ALSO_8192=blocked_tc,double_buffer_tc,cublas_bf16

PROFILE_KERNELS=blocked,double_buffer,cublas,blocked_tc,double_buffer_tc,cublas_bf16
# ... and the lesson kernel again with these knobs, beside the default
PROFILE_VARIANTS=(BK=8)

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=double_buffer,double_buffer_tc --m=2048 --n=2048 --k=512)
TRACE_TEST_ARGS=()
TRACE_MUST=(issue "wait full" compute store)

# make check-02 (tests/classroom/check.sh): the kernels a student's code
# is run as (--only), and per exercise what its code puts in the PTX of
# kernel.cu: "EXERCISE FUNCTION REGEX [COUNT] [after:R] [before:R] [if:R]",
# FUNCTION "-" for the whole file or a part of a kernel's name to look in
# that kernel only (the syntax: the top of tests/classroom/check.sh). The
# counts are the lesson's at the default knobs; tests/classroom/wrong/ has
# the mistakes each rule tells apart. CHECK_GPU: what of an exercise the
# PTX cannot show (its row says that the GPU part decides).
CHECK_ONLY=double_buffer
# 02.1: the copies, the acquire's wait before them, the commit's arrival;
# 02.2: a wait after the copies (the consumer's), and the release's arrival
# after the tile's shared-memory reads
CHECK_PTX=('02.1 - cp\.async\.(cg|ca)\.shared\.global' '02.1 - mbarrier\.try_wait before:cp\.async\.(cg|ca)'
           '02.1 - cp\.async\.mbarrier\.arrive'
           '02.2 - mbarrier\.try_wait after:cp\.async\.(cg|ca)'
           '02.2 - mbarrier\.arrive\.shared::cta after:ld\.shared\.v4')

# The knobs test: every knob away from its default (tests/run.sh knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=1 STAGES=3 TC_BN=256 TC_STAGES=4)
