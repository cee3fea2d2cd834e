# Chapter 06's test, benchmark and profile settings (sourced by tests/*.sh).

# Cluster barriers (cluster.sync()), DSMEM addresses (mapa), bulk copies
# into a peer's shared memory that complete on its mbarrier, the bytes they
# bring (expect_tx), and the consumers' arrivals on a peer's mbarrier.
PTX_MUST=('barrier\.cluster\.arrive' 'barrier\.cluster\.wait' 'mapa\.shared::cluster'
          'cp\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes'
          'mbarrier\.expect_tx' 'mbarrier\.arrive\.shared::cluster')
PTX_MUST_NOT=()
# Chapter 03's kernel (a baseline here) uses cuda::pipeline: synccheck's known report.
# The tensor-core kernel: cp.async producers whose parts go to the peer by a
# bulk copy between shared memories, wgmma consumers releasing across the cluster.
PTX_MUST_TC=('wgmma\.mma_async\.sync\.aligned\.m64n(128|256)k16\.f32\.bf16\.bf16' 'cp\.async\.cg\.shared\.global.*16'
             'cp\.async\.mbarrier\.arrive\.noinc'
             'cp\.async\.bulk\.shared::cluster\.shared::cta\.mbarrier::complete_tx::bytes' 'mbarrier\.expect_tx'
             'mbarrier\.arrive\.shared::cluster' 'setmaxnreg\.inc\.sync\.aligned\.u32 232')
PIPELINE_API=1
QUICK_SANITIZER=racecheck

# The GEMM shape tests leave the demonstrations out; the sanitizers run both, smaller.
SHAPE_ARGS=(--only warp_specialized,persistent,cluster,cluster_registers,cluster_fenced,cluster_leader,cublas,persistent_static_tc,cluster_tc,cublas_bf16)
SANITIZE_ARGS=(--m 130 --n 200 --k 70 --elements 100000 --rounds 20 --pings 100)
GPU_CASES=(--elements=1,--only=clusters --elements=1000003,--rounds=3,--pings=5,--only=clusters)
QUICK_CASES=(--elements=1000003,--rounds=3,--pings=5,--only=clusters)
GPU_EXIT_CASES=(4:--bad-cluster-grid,--only=clusters 5:--divergent-cluster-sync,--only=clusters,--rounds=3,--timeout=3)

BENCH_KERNEL=cluster
# at 8192^3 also the parent's kernel, in the same run
BENCH_ALSO_8192=warp_specialized,persistent_static_tc,cluster_tc,cublas_bf16
BENCH_VARIANTS=(CLUSTER=1 CLUSTER=4 CLUSTER=8 PRODUCER_WARPS=8
                cluster_tc:TC_CLUSTER=1 cluster_tc:TC_CLUSTER=4 cluster_tc:TC_GROUP=4 cluster_tc:TC_BN=128,TC_STAGES=6)
# the variants within 3% of the default at 4096^3 (H100 bench): tests/ab.sh times them again,
# interleaved with the default build, round after round
AB_VARIANTS=(CLUSTER=1 PRODUCER_WARPS=8 cluster_tc:TC_GROUP=4)
SANITIZE_VARIANTS=(CLUSTER=1 CLUSTER=4 cluster_tc:TC_CLUSTER=4)

PROFILE_KERNELS=warp_specialized,cluster,cluster_registers,cublas,persistent_static_tc,cluster_tc,cublas_bf16
PROFILE_VARIANTS=(CLUSTER=1 CLUSTER=4 cluster_tc:TC_CLUSTER=1)

# --trace (TRACE=1 builds): the arguments of the committed trace's run
# (tests/trace.sh), the test run's extra arguments, and the steps the test
# run must record.
TRACE_ARGS=(--only=cluster,cluster_tc --m=2048 --n=2048 --k=512)
TRACE_TEST_ARGS=(--elements 100000 --rounds 3 --pings 5)
TRACE_MUST=("cluster sync" "wait empty" share issue "wait full" compute store)

# make check-06 and make grade-06 (tests/classroom/check.py). CHECK_FILES:
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
CHECK_FILES=('kernel.cu kernel cluster')
# 06.1: a cluster barrier at each end; 06.2: one bulk copy per peer
# (CLUSTER - 1 = 1 at the default CLUSTER=2, the loop unrolled)
CHECK_PTX=('06.1 - barrier\.cluster\.arrive >=2' '06.1 - barrier\.cluster\.wait >=2'
           '06.2 - cp\.async\.bulk\.shared::cluster\.shared::cta =1' '06.3 - mbarrier\.expect_tx')
CHECK_GPU=("06.2 which peer gets the part, from which row (a register operand)"
           "06.3 the byte count and which threads announce it")

# The knobs test: every knob away from its default (tests/test_gpu.py, test_knobs_recorded);
# the register variants need BM / CLUSTER x BK / 4 to split over their 256 producers.
KNOBS_TEST=(BM=64 BN=64 BK=64 STAGES=3 PRODUCER_WARPS=2 CLUSTER=4 TC_BN=128 TC_STAGES=3 TC_CLUSTER=1 TC_GROUP=2
            TC_PRODUCER_REGS=64 TC_CONSUMER_REGS=216)
