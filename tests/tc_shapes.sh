#!/usr/bin/env bash
# What odd shapes cost the tensor-core line: each chapter's tensor-core
# kernels and cuBLAS BF16 at 4096^3, at K = 4088 (a multiple of 8 but not of
# the tile's 64: the last K tile takes the guarded path, or TMA's zero fill)
# and at 4095^3 (K and N not multiples of 8: no row of A or B is 16-byte
# aligned, so every chunk goes element by element, or chapter 07 pads the
# rows first), each row verified.
#
#   TUTORIAL_COMMIT=abc123 bash tests/tc_shapes.sh   -> docs/results/<gpu>-tc-shapes.csv
#   CHAPTERS=07_tma_multicast bash tests/tc_shapes.sh   (that chapter's rows only)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

runs="01_naive|blocked_tc,cublas_bf16
02_double_buffer|blocked_tc,double_buffer_tc,cublas_bf16
03_warp_specialized|double_buffer_tc,warp_specialized_tc,cublas_bf16
04_persistent|warp_specialized_tc,persistent_tc,cublas_bf16
06_clusters_dsmem|persistent_tc,cluster_tc,cublas_bf16
07_tma_multicast|cluster_tc,tma_multicast_tc,cublas_bf16"
shapes="4096x4096x4096 4096x4096x4088 4095x4095x4095"
out="docs/results/$(gpu_slug)-tc-shapes.csv"
mkdir -p tests/build/logs docs/results
# CHAPTERS (names, space-separated) runs those only; the other chapters'
# rows of the CSV stay as they were, in the order of the list above.
all_runs=$runs
if [ -n "${CHAPTERS:-}" ]; then
    runs=$(grep -E "^($(tr ' ' '|' <<<"$CHAPTERS"))\|" <<<"$all_runs") || { echo "tc_shapes: none of $CHAPTERS" >&2; exit 2; }
fi
while IFS='|' read -r ch _; do bench_build "$ch" >/dev/null & done <<<"$runs"
wait
rows=$(mktemp) one=$(mktemp)
trap 'rm -f "$rows" "$one"' EXIT
while IFS='|' read -r ch kernels; do
    for s in $shapes; do
        IFS=x read -r m n k <<<"$s"
        echo "== $ch $s"
        log="tests/build/logs/tc-shapes-$ch-$s.log"
        "$(bench_build "$ch")" --only "$kernels" --m "$m" --n "$n" --k "$k" --reps 10 --csv >"$one" 2>"$log" ||
            { tail -n 20 "$log" >&2; exit 1; }
        [ -s "$rows" ] || head -n 1 "$one" >"$rows"
        tail -n +2 "$one" >>"$rows"
        tail -n 1 "$log"
    done
done <<<"$runs"
if [ -n "${CHAPTERS:-}" ] && [ -s "$out" ]; then
    merged=$(mktemp)
    head -n 1 "$rows" >"$merged"
    while IFS='|' read -r ch _; do
        if grep -q "^$ch|" <<<"$runs"; then src=$rows; else src=$out; fi
        awk -F, -v ch="$ch" 'NR > 1 && $6 == ch' "$src" >>"$merged"
    done <<<"$all_runs"
    mv "$merged" "$rows"
fi
cp "$rows" "$out"
echo "wrote $out"
