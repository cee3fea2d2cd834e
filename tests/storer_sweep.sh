#!/usr/bin/env bash
# Where storer warps pay, and where they do not: chapter 04's persistent
# GEMM with and without storer warps, with its plain epilogue (stores only)
# and with a residual epilogue (RESIDUAL=1: C = A*B + R, a load before each
# store), at a long K (4096^3) and at short ones (16384 x 16384 x K for K
# from 32 to 256, where the epilogue is a large part of each tile's work).
# Every run is verified.
#
#   TUTORIAL_COMMIT=abc123 bash tests/storer_sweep.sh   -> docs/results/<gpu>-storer.csv
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh
ch=04_persistent
# 8 producer warps keep the consumers busy; a storer warp beside them
# makes the block 17 warps, which caps every thread at 96 registers.
# 4 producers leave room for storers at 128 registers, but the copies then
# limit. On Hopper the storers write C with bulk copies (one warp is enough);
# 4 storer warps show what more of them change.
settings="STORER_WARPS=0 STORER_WARPS=1 PRODUCER_WARPS=4,STORER_WARPS=0 PRODUCER_WARPS=4,STORER_WARPS=1
PRODUCER_WARPS=4,STORER_WARPS=4"
# shape:RESIDUAL; the plain epilogue only at the two ends of the K range
cases="4096x4096x4096:0 16384x16384x32:0 4096x4096x4096:1 16384x16384x32:1 16384x16384x64:1
16384x16384x128:1"
# ... and Nsight Compute at this shape, for these settings (RESIDUAL=1)
profile_shape=16384x16384x64
profile_settings="STORER_WARPS=0 PRODUCER_WARPS=4,STORER_WARPS=0 PRODUCER_WARPS=4,STORER_WARPS=1
PRODUCER_WARPS=4,STORER_WARPS=4"

out="docs/results/$(gpu_slug)-storer.csv"
mkdir -p tests/build/logs docs/results

# the builds tests/profile.sh uses too (tests/build/bench)
pids=()
for r in 0 1; do
    for s in $settings; do
        bench_build "$ch" "$s,RESIDUAL=$r" >/dev/null &
        pids+=($!)
    done
done
for p in "${pids[@]}"; do wait "$p"; done

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"
for c in $cases; do
    shape=${c%:*} r=${c#*:}
    IFS=x read -r m n k <<<"$shape"
    for s in $settings; do
        log="tests/build/logs/storer-run-$(variant_dir "$s,RESIDUAL=$r")-$shape.log"
        "$(bench_build "$ch" "$s,RESIDUAL=$r")" --only persistent,cublas --m "$m" --n "$n" --k "$k" --reps 10 --csv >"$tmp" 2>"$log"
        tail -n +2 "$tmp" >>"$tmp.rows"
        echo "$shape RESIDUAL=$r $s: $(grep '^persistent' "$log" | head -n1 | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i " ms"; break}}')"
    done
done
{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
    cat "$tmp.rows"
} >"$out"
echo "wrote $out"

if command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
    IFS=x read -r m n k <<<"$profile_shape"
    PROFILE_KERNELS= PROFILE_VARIANTS="$(for s in $profile_settings; do echo "$s,RESIDUAL=1"; done)" \
        PROFILE_ARGS="--m $m --n $n --k $k" PROFILE_OUT="${out%.csv}-ncu.csv" CHAPTERS=$ch \
        bash tests/profile.sh
fi
