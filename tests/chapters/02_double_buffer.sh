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
# 'Missing wait' at producer_commit (tests/test_gpu.py, sanitize).
PIPELINE_API=1
QUICK_SANITIZER=racecheck

BENCH_KERNEL=double_buffer
BENCH_VARIANTS=(BK=8,STAGES=2 BK=8,STAGES=3 BK=16,STAGES=2 BK=16,STAGES=3
                BK=32,STAGES=2 BK=32,STAGES=3 BK=32,STAGES=4
                double_buffer_tc:TC_STAGES=2 double_buffer_tc:TC_STAGES=4 double_buffer_tc:TC_BN=256,TC_STAGES=4)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(BK=32,STAGES=2 BK=32,STAGES=3 double_buffer_tc:TC_STAGES=2 double_buffer_tc:TC_BN=256,TC_STAGES=4)
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

# make check-02 and make grade-02 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel double_buffer' 'kernel_tc.cu kernel_tc double_buffer_tc')
# 02.1: the copies, the acquire's wait before them, the commit's arrival;
# 02.2: a wait after the copies (the consumer's), and the release's arrival
# after the tile's shared-memory reads (kernel.cu), after the wgmma wait
# that ends the tensor cores' reads of the stage (kernel_tc.cu), or on the
# mma.sync path after its ldmatrix reads (kernel_tc@TC_MMA=mma_sync)
CHECK_PTX=('02.1 - cp\.async\.(cg|ca)\.shared\.global' '02.1 - mbarrier\.try_wait before:cp\.async\.(cg|ca)'
           '02.1 - cp\.async\.mbarrier\.arrive'
           '02.2 - mbarrier\.try_wait after:cp\.async\.(cg|ca)'
           '02.2 - mbarrier\.arrive\.shared::cta after:ld\.shared\.v4'
           '02.1 kernel_tc:- cp\.async\.cg\.shared\.global' '02.1 kernel_tc:- mbarrier\.try_wait before:cp\.async\.cg'
           '02.1 kernel_tc:- cp\.async\.mbarrier\.arrive'
           '02.2 kernel_tc:- mbarrier\.try_wait after:cp\.async\.cg'
           '02.2 kernel_tc:- mbarrier\.arrive\.shared::cta after:wgmma\.wait_group'
           '02.1 kernel_tc@TC_MMA=mma_sync:- cp\.async\.cg\.shared\.global'
           '02.1 kernel_tc@TC_MMA=mma_sync:- mbarrier\.try_wait before:cp\.async\.cg'
           '02.1 kernel_tc@TC_MMA=mma_sync:- cp\.async\.mbarrier\.arrive'
           '02.2 kernel_tc@TC_MMA=mma_sync:- mbarrier\.try_wait after:cp\.async\.cg'
           '02.2 kernel_tc@TC_MMA=mma_sync:- mbarrier\.arrive\.shared::cta after:ldmatrix')
# the GPU part runs the tensor-core kernel on its mma.sync path too
CHECK_BUILDS=('TC_MMA=mma_sync:double_buffer_tc')
CHECK_GPU=("02.1 which stage each tile's copies go to (an index)")

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
KNOBS_TEST=(BM=64 BN=64 BK=16 MIN_BLOCKS=1 STAGES=3 TC_BN=256 TC_STAGES=4)
