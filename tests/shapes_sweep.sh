#!/usr/bin/env bash
# Where a chapter's technique pays against its parent's kernel, beyond the
# default sizes: 04 and 06 against 03 (04 is slower at 4096^3 and 8192^3;
# 06's gain there is small) and 07 against 06, run at shapes that stress
# what the technique changes:
#   16384 x 16384 x 64, x 256  short K: each tile's fill, drain and store are
#                              a large part of its work (what persistence
#                              overlaps);
#   2048 x 2048 x 16384        long K and 256 tiles of 128 x 128: under two
#                              waves, with a ragged second one;
#   8192 x 8192 x 1024         between the two.
# Each chapter's run holds its parent's kernel, so every comparison is made
# in one run; every row is verified. Then Nsight Compute profiles the shape
# where a technique pays most (short K for 04 and 07), for its page.
#
#   TUTORIAL_COMMIT=abc123 bash tests/shapes_sweep.sh   -> docs/results/<gpu>-shapes.csv
#                                                          docs/results/<gpu>-shapes-ncu.csv
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

# chapter|kernels (the parent's first)
runs="04_persistent|warp_specialized,persistent,cublas
06_clusters_dsmem|warp_specialized,cluster,cluster_leader,cublas
07_tma_multicast|cluster,tma,tma_multicast,cublas"
shapes="16384x16384x64 16384x16384x256 2048x2048x16384 8192x8192x1024"
# chapter|kernels|shape to profile
profiles="04_persistent|warp_specialized,persistent,cublas|16384x16384x64
07_tma_multicast|tma,tma_multicast,cublas|16384x16384x256"

out="docs/results/$(gpu_slug)-shapes.csv"
mkdir -p tests/build/logs docs/results

pids=()
while IFS='|' read -r ch _; do
    bench_build "$ch" >/dev/null &
    pids+=($!)
done <<<"$runs"
for p in "${pids[@]}"; do wait "$p"; done

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"
while IFS='|' read -r ch kernels; do
    for shape in $shapes; do
        IFS=x read -r m n k <<<"$shape"
        log="tests/build/logs/shapes-$ch-$shape.log"
        "$(bench_build "$ch")" --only "$kernels" --m "$m" --n "$n" --k "$k" --reps 10 --csv >"$tmp" 2>"$log"
        tail -n +2 "$tmp" >>"$tmp.rows"
        echo "$ch $shape: $(grep -E '^(PASSED|FAILED)' "$log" | tail -n1)"
    done
done <<<"$runs"
{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
    cat "$tmp.rows"
} >"$out"
echo "wrote $out"

if command -v ncu >/dev/null || [ -x /usr/local/cuda/bin/ncu ]; then
    while IFS='|' read -r ch kernels shape; do
        IFS=x read -r m n k <<<"$shape"
        PROFILE_KERNELS=$kernels PROFILE_VARIANTS= PROFILE_ARGS="--m $m --n $n --k $k" \
            PROFILE_OUT="${out%.csv}-ncu.csv" CHAPTERS=$ch bash tests/profile.sh
    done <<<"$profiles"
fi
