# Chapter 04's test, benchmark and profile settings (sourced by tests/*.sh).

# The work queue is an atomic add on global memory; the pipeline is chapter 03's.
PTX_MUST=('atom\.global\.add' 'mbarrier\.try_wait' 'cp\.async\.(cg|ca)\.shared\.global')
PTX_MUST_NOT=()
PIPELINE_API=1
QUICK_SANITIZER=racecheck

# The GEMM shape tests leave the task demonstration out; the sanitizers
# run both parts, with fewer tasks.
SHAPE_ARGS=(--only warp_specialized,persistent,cublas)
SANITIZE_ARGS=(--m 130 --n 200 --k 70 --tasks 50)
# Cases beyond the GEMM shapes: task counts (comma-separated arguments)...
GPU_CASES=(--tasks=1,--only=tasks --tasks=7,--only=tasks --tasks=1000,--only=tasks
           --tasks=10000,--only=tasks,--reps=2)
QUICK_CASES=(--tasks=7,--only=tasks)
# ... and runs that must end with a given exit code (CODE:arguments)
GPU_EXIT_CASES=(1:--skip-reset,--only=tasks,--tasks=100)

BENCH_KERNEL=persistent
BENCH_VARIANTS=(GROUP=1 GROUP=2 GROUP=4 GROUP=16 STORER_WARPS=1 PRODUCER_WARPS=4,STORER_WARPS=4
                PRODUCER_WARPS=4,STORER_WARPS=0 STAGES=3 RESIDUAL=1
                RESIDUAL=1,PRODUCER_WARPS=4,STORER_WARPS=4)
# Storer warps hand C over through cuda::barriers, and with RESIDUAL=1 fetch
# R into it with asynchronous copies: memcheck and racecheck on each.
SANITIZE_VARIANTS=(STORER_WARPS=1 PRODUCER_WARPS=4,STORER_WARPS=4 RESIDUAL=1 RESIDUAL=1,STORER_WARPS=1
                   RESIDUAL=1,PRODUCER_WARPS=4,STORER_WARPS=4)

PROFILE_KERNELS=warp_specialized,persistent,cublas
PROFILE_VARIANTS=(GROUP=1 GROUP=16 PRODUCER_WARPS=4,STORER_WARPS=4)
