#!/usr/bin/env bash
# make bench: time every chapter on this GPU and record the results.
#
# For each chapter: the default build at 4096^3 (all its kernels and cuBLAS),
# its main kernel (BENCH_KERNEL) and cuBLAS at 8192^3, and every knob variant
# its Makefile lists in BENCH_VARIANTS at 4096^3. Every row is verified.
# A chapter that is not a GEMM (GEMM := 0) runs its default and each
# argument set in BENCH_ARGS instead.
#
# Writes  docs/results/<gpu>.csv           default builds
#         docs/results/<gpu>-variants.csv  knob variants
# (RESULTS_DIR=dir writes there instead), then prints a summary table.
# The commit recorded is $TUTORIAL_COMMIT, else `git rev-parse HEAD`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "make bench: no NVIDIA GPU here" >&2
    exit 3
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
slug=$(echo "$gpu" | tr 'A-Z' 'a-z' | grep -oE '\b[a-z]{1,2}[0-9]{2,4}\b' | head -n1 || true)
slug=${slug:-gpu}
if [ -z "${TUTORIAL_COMMIT:-}" ]; then
    TUTORIAL_COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    if [ "$TUTORIAL_COMMIT" != unknown ] && ! git diff --quiet HEAD 2>/dev/null; then
        TUTORIAL_COMMIT="$TUTORIAL_COMMIT-dirty"
    fi
fi
export TUTORIAL_COMMIT

dir=${RESULTS_DIR:-docs/results}
mkdir -p "$dir" tests/build/logs
main="$dir/$slug.csv"
variants="$dir/$slug-variants.csv"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.main" "$tmp.var"' EXIT
: >"$tmp.main"
: >"$tmp.var"

run_csv() { # log target program args...: append the CSV rows (not the header)
    local log=$1 target=$2
    shift 2
    if ! "$@" --csv >"$tmp" 2>"$log"; then
        echo "FAILED: $* (log: $log)" >&2
        tail -n 20 "$log" >&2
        exit 1
    fi
    tail -n +2 "$tmp" >>"$target"
    tail -n 1 "$log"
}

for ch in ${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}; do
    echo "== $ch"
    make --no-print-directory -C "$ch" >/dev/null
    kernel=$(make -s --no-print-directory -C "$ch" print-BENCH_KERNEL)
    run_csv "tests/build/logs/bench-$ch.log" "$tmp.main" "$ch/run"
    if [ "$(make -s --no-print-directory -C "$ch" print-GEMM)" = 0 ]; then
        # not a GEMM: its own argument sets (BENCH_ARGS, comma-separated words)
        for a in $(make -s --no-print-directory -C "$ch" print-BENCH_ARGS); do
            echo "   $a"
            run_csv "tests/build/logs/bench-$ch-$(echo "$a" | tr -c 'A-Za-z0-9_.-' '_').log" "$tmp.main" \
                "$ch/run" $(echo "$a" | tr ',' ' ')
        done
        continue
    fi
    run_csv "tests/build/logs/bench-$ch-8192.log" "$tmp.main" "$ch/run" --m 8192 --n 8192 --k 8192 \
        --only "$kernel,cublas" --reps 10
    for v in $(make -s --no-print-directory -C "$ch" print-BENCH_VARIANTS); do
        b="build/variant-$(echo "$v" | tr ',=' '_-')"
        make --no-print-directory -C "$ch" BUILD="$b" BIN="$b/run" $(echo "$v" | tr ',' ' ') >/dev/null
        echo "   $v"
        run_csv "tests/build/logs/bench-$ch-$(echo "$v" | tr ',=' '_-').log" "$tmp.var" "$ch/$b/run" \
            --only "$kernel,cublas"
    done
done

header="gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
chapters=" ${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d / | tr '\n' ' ')} "
# Rows of the chapters measured now replace their old rows; other chapters' stay.
merge() { # results-file new-rows
    {
        echo "$header"
        {
            [ -f "$1" ] && awk -F, -v chs="$chapters" 'NR > 1 && index(chs, " " $6 " ") == 0' "$1"
            cat "$2"
        } | sort -t, -k6,6 -s
    } >"$1.new" && mv "$1.new" "$1"
}
merge "$main" "$tmp.main"
merge "$variants" "$tmp.var"
echo
echo "wrote $main and $variants ($gpu, commit $TUTORIAL_COMMIT)"
echo
awk -F, 'NR > 1 { printf "%-20s %-22s %9s %9s  %9s ms  %7s TFLOP/s  %7s%% of cuBLAS  %s\n", $6, $7, $8, $9, $12, $15, $16, $17 }' "$main"
