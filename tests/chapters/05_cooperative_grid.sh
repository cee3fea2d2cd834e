# Chapter 05's test, benchmark and profile settings (sourced by tests/*.sh).

# The grid barrier of cooperative_groups::grid_group::sync(): a barrier over
# the block, then an atomic on a global counter and a spin on it.
PTX_MUST=('atom\.add\.release\.gpu' 'ld\.acquire\.gpu')
PTX_MUST_NOT=()
# grid.sync() works through global memory, which racecheck does not follow
QUICK_SANITIZER=memcheck

# Not a GEMM: no matrix shapes; these cases instead (comma-separated arguments)
GEMM=0
# (the Cooperative Groups parts, demos/groups.cu, at small and odd sizes: a tour of
# one thread, a sum of one float, a Jacobi grid with one interior cell)
SMALL=--reduce-elements=5000,--jacobi-side=67,--jacobi-iters=5
GPU_CASES=(--elements=1,$SMALL --elements=17,--iters=7,$SMALL --elements=1000,--blocks=1,--only=two_stage+softmax+sync
           --elements=4097,--blocks=7,--only=two_stage+softmax+sync --elements=1000000,--iters=10,$SMALL
           --no-coop,--elements=4097,$SMALL --elements=16777216,--iters=3,--reps=2,--only=two_stage+softmax+sync
           --only=groups+reduce+jacobi,--elements=1,--reduce-elements=1,--jacobi-side=3,--jacobi-iters=1
           --only=groups+reduce+jacobi,--elements=4097,--reduce-elements=1000003,--jacobi-side=1001,--jacobi-iters=7
           --only=reduce+jacobi,--reps=3)
QUICK_CASES=(--elements=17,--iters=7,$SMALL --elements=4097,--blocks=7,--only=two_stage+softmax+sync
             --no-coop,--elements=4097,$SMALL
             --only=groups+reduce+jacobi,--elements=4097,--reduce-elements=1000003,--jacobi-side=1001,--jacobi-iters=7)
GPU_EXIT_CASES=(3:--blocks=1000000 5:--divergent-sync,--only=two_stage,--iters=3,--timeout=3)
SANITIZE_ARGS=(--elements 5000 --iters 3 --reduce-elements 5000 --jacobi-side 67 --jacobi-iters 5)

# make bench: these argument sets (--blocks=132: one block per SM on an H100)
BENCH_KERNEL=cooperative
# (the default run has the Cooperative Groups parts; these sets leave them
# out, but for a Jacobi grid small enough that a sweep is as short as a launch)
BENCH_ARGS=(--blocks=132,--only=two_stage+softmax+sync --elements=4194304,--iters=100,--only=two_stage+softmax+sync
            --elements=67108864,--iters=10,--only=two_stage+softmax+sync
            --only=jacobi,--jacobi-side=1024,--jacobi-iters=1000 --only=jacobi,--jacobi-side=256,--jacobi-iters=1000)

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=two_stage --elements=4194304 --iters=10)
TRACE_TEST_ARGS=(--iters 3 --elements 100000)
TRACE_MUST=(work grid.sync)

# make check-05 and make grade-05 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel two_stage_cooperative,softmax_cooperative')
CHECK_ONLY=two_stage,softmax
CHECK_PTX=('05.1 two_stage_cooperative atom\.add\.release\.gpu >=2' '05.2 softmax_cooperative atom\.add\.release\.gpu')

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded).
KNOBS_TEST=(THREADS=128)
KNOBS_TEST_ARGS=(--iters 4 --elements 100000 --reps 1 --warmup 0)
