#!/usr/bin/env bash
# Where storer warps pay, and where they do not: chapter 04's persistent
# GEMM without storers (the lesson kernel, or persistent_residual) and with
# them (persistent_storer, persistent_storer_residual), with its plain
# epilogue (stores only) and with a residual epilogue (C = A*B + R, a load
# before each store), at a long K (4096^3) and at short ones (16384 x 16384 x
# K for K from 32 to 128, where the epilogue is a large part of each tile's
# work). Every run is verified.
#
#   TUTORIAL_COMMIT=abc123 bash tests/storer_sweep.sh   -> docs/results/<gpu>-storer.csv
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh
ch=04_persistent
# 4 producer warps (the lesson's) or 8. A storer warp beside 8 producers
# makes the block 17 warps, which caps every thread at 96 registers; beside
# 4 it makes 13, at up to 152. On Hopper the storers write C with bulk
# copies (one warp is enough); 4 storer warps show what more of them
# change. (producers,storers)
settings="8,0 8,1 4,0 4,1 4,4"
# shape:residual; the plain epilogue only at the two ends of the K range
cases="4096x4096x4096:0 16384x16384x32:0 4096x4096x4096:1 16384x16384x32:1 16384x16384x64:1
16384x16384x128:1"
# ... and Nsight Compute at this shape, with the residual, for these settings
profile_shape=16384x16384x64
profile_settings="8,0 4,0 4,1 4,4"

out="docs/results/$(gpu_slug)-storer.csv"
mkdir -p tests/build/logs docs/results

# The kernel and the build (KERNEL:KNOBS, as in the chapter's test settings)
# of a setting and epilogue.
setting() { # producers,storers residual
    local p=${1%,*} s=${1#*,} k=persistent
    [ "$s" -gt 0 ] && k=${k}_storer
    [ "$2" = 1 ] && k=${k}_residual
    if [ "$s" -gt 0 ]; then echo "$k:PRODUCER_WARPS=$p,STORER_WARPS=$s"; else echo "$k:PRODUCER_WARPS=$p"; fi
}

# the builds tests/profile.sh uses too (tests/build/bench)
pids=()
for s in $settings; do
    bench_build "$ch" "$(setting "$s" 0)" >/dev/null &
    pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"
for c in $cases; do
    shape=${c%:*} r=${c#*:}
    IFS=x read -r m n k <<<"$shape"
    for s in $settings; do
        v=$(setting "$s" "$r")
        log="tests/build/logs/storer-run-$(variant_dir "$v")-$(variant_kernel "$v")-$shape.log"
        "$(bench_build "$ch" "$v")" --only "$(variant_kernel "$v")",cublas --m "$m" --n "$n" --k "$k" --reps 10 \
            --csv >"$tmp" 2>"$log"
        tail -n +2 "$tmp" >>"$tmp.rows"
        echo "$shape $v: $(grep "^$(variant_kernel "$v") " "$log" | head -n1 | awk '{for(i=1;i<=NF;i++) if ($i ~ /^[0-9]+\.[0-9]+$/) {print $i " ms"; break}}')"
    done
done
{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
    cat "$tmp.rows"
} >"$out"
echo "wrote $out"

if command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
    IFS=x read -r m n k <<<"$profile_shape"
    PROFILE_KERNELS= PROFILE_VARIANTS="$(for s in $profile_settings; do setting "$s" 1; done)" \
        PROFILE_ARGS="--m $m --n $n --k $k" PROFILE_OUT="${out%.csv}-ncu.csv" CHAPTERS=$ch \
        bash tests/profile.sh
fi
