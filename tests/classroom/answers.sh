#!/usr/bin/env bash
# The measured answers of the chapters' questions (docs/instructor.md):
# the knob settings and sizes the questions ask about that `make bench` does
# not already time. Every row is verified, as in make bench.
#
#   bash tests/classroom/answers.sh     -> docs/results/<gpu>-answers.csv
#
# The commit recorded is $TUTORIAL_COMMIT, else `git rev-parse HEAD`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib.sh

nvidia-smi -L >/dev/null 2>&1 || { echo "answers.sh: no NVIDIA GPU here" >&2; exit 3; }
export TUTORIAL_COMMIT=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
out=docs/results/$(gpu_slug)-answers.csv
tmp=$(mktemp)
rows=$(mktemp)
trap 'rm -f "$tmp" "$rows"' EXIT

# question: chapter, knob setting (comma-separated, "" for the default build), run arguments
answers=(
    "01_naive|TILE=16|--only tiled,cublas"
    "03_warp_specialized|PRODUCER_WARPS=2,STAGES=6|--only warp_specialized,cublas"
    "05_cooperative_grid|THREADS=512|--only two_stage,sync"
    "05_cooperative_grid|THREADS=1024|--only two_stage,sync"
    "05_cooperative_grid||--only two_stage,sync"
    "07_tma_multicast|CLUSTER_M=1,CLUSTER_N=4|--only tma_multicast,cublas"
    "07_tma_multicast|PRODUCER_REGS=168,CONSUMER_REGS=168|--only tma,cublas"
)
for e in 16 18 20 22 24 26; do answers+=("05_cooperative_grid||--only softmax --elements $((1 << e))"); done

echo "== building"
for a in "${answers[@]}"; do
    IFS='|' read -r ch knobs _ <<<"$a"
    bench_build "$ch" "$knobs" >/dev/null &
done
wait

for a in "${answers[@]}"; do
    IFS='|' read -r ch knobs args <<<"$a"
    echo "== $ch ${knobs:-(default build)} $args"
    prog=$(bench_build "$ch" "$knobs")
    # shellcheck disable=SC2086
    "$prog" $args --csv >"$tmp" 2>"tests/build/logs/answers.log" || {
        tail -n 20 tests/build/logs/answers.log >&2
        exit 1
    }
    tail -n +2 "$tmp" >>"$rows"
done
{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
    sort -t, -k6,6 -s "$rows"
} >"$out"
echo "wrote $out"
cat "$out"
