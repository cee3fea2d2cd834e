#!/usr/bin/env bash
# make bench: time every chapter on this GPU and record the results.
#
# For each chapter: the default build at 4096^3 (all its kernels and cuBLAS),
# its main kernel (BENCH_KERNEL), any in BENCH_ALSO_8192 and cuBLAS at 8192^3, and every knob setting
# in BENCH_VARIANTS at 4096^3 (tests/chapters/<chapter>.sh). Every row is
# verified. A chapter that is not a GEMM (GEMM=0) runs its default and each
# argument set in BENCH_ARGS instead; a GEMM chapter also runs each set in
# BENCH_DEMO_ARGS (its demonstrations at other settings). The builds go to tests/build/bench (in
# parallel, first), so the user's own builds stay as they are.
#
# Then each GEMM chapter's settings for parts with less shared memory per
# block (KNOBS_163KB, KNOBS_99KB in its Makefile: what an A100 or an RTX 40
# builds), built for this GPU with SMEM_PER_BLOCK=bytes and run with
# --smem-limit bytes, beside its default build run the same way: H100
# measurements of those settings, not of those GPUs.
#
# Writes  docs/results/<gpu>.csv           default builds
#         docs/results/<gpu>-variants.csv  knob variants
#         docs/results/<gpu>-smem.csv      the small-memory settings (and the default), a smem_per_block column added
# (RESULTS_DIR=dir writes there instead), then prints a summary table.
# The commit recorded is $TUTORIAL_COMMIT, else `git rev-parse HEAD`.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "make bench: no NVIDIA GPU here" >&2
    exit 3
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
slug=$(gpu_slug)
if [ -z "${TUTORIAL_COMMIT:-}" ]; then
    TUTORIAL_COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    if [ "$TUTORIAL_COMMIT" != unknown ] && ! git diff --quiet HEAD 2>/dev/null; then
        TUTORIAL_COMMIT="$TUTORIAL_COMMIT-dirty"
    fi
fi
export TUTORIAL_COMMIT

CHAPTERS=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}
dir=${RESULTS_DIR:-docs/results}
mkdir -p "$dir" tests/build/logs
main="$dir/$slug.csv"
variants="$dir/$slug-variants.csv"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.main" "$tmp.var" "$tmp.smem" "$tmp.one"' EXIT
: >"$tmp.main"
: >"$tmp.var"

echo "== building (tests/build/bench, $(nproc) at a time)"
for ch in $CHAPTERS; do
    settings "$ch"
    if [ "$GEMM" != 0 ]; then
        for l in $(smem_settings "$ch"); do
            while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
            bench_build "$ch" "smem:SMEM_PER_BLOCK=$l" >/dev/null &
        done
    fi
    for v in "" "${BENCH_VARIANTS[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
        bench_build "$ch" "$v" >/dev/null &
    done
done
while [ -n "$(jobs -rp)" ]; do wait -n; done

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

for ch in $CHAPTERS; do
    echo "== $ch"
    settings "$ch"
    prog=$(bench_build "$ch")
    run_csv "tests/build/logs/bench-$ch.log" "$tmp.main" "$prog"
    if [ "$GEMM" = 0 ]; then
        # not a GEMM: its own argument sets (comma-separated words)
        for a in "${BENCH_ARGS[@]}"; do
            echo "   $a"
            # shellcheck disable=SC2046
            run_csv "tests/build/logs/bench-$ch-$(echo "$a" | tr -c 'A-Za-z0-9_.-' '_').log" "$tmp.main" \
                "$prog" $(case_words "$a")
        done
        continue
    fi
    # a GEMM chapter's demonstrations at other settings (comma-separated words, as BENCH_ARGS)
    for a in "${BENCH_DEMO_ARGS[@]}"; do
        echo "   $a"
        # shellcheck disable=SC2046
        run_csv "tests/build/logs/bench-$ch-$(echo "$a" | tr -c 'A-Za-z0-9_.-' '_').log" "$tmp.main" \
            "$prog" $(case_words "$a")
    done
    run_csv "tests/build/logs/bench-$ch-8192.log" "$tmp.main" "$prog" --m 8192 --n 8192 --k 8192 \
        --only "$BENCH_KERNEL,${BENCH_ALSO_8192:+$BENCH_ALSO_8192,}cublas" --reps 10
    for v in "${BENCH_VARIANTS[@]}"; do
        echo "   $v"
        # (a tensor-core kernel's yardstick is cuBLAS BF16)
        run_csv "tests/build/logs/bench-$ch-$(variant_dir "$v").log" "$tmp.var" "$(bench_build "$ch" "$v")" \
            --only "$(variant_kernel "$v"),$(case $(variant_kernel "$v") in *_tc) echo cublas_bf16 ;; *) echo cublas ;; esac)"
    done
done

# The small-memory settings, each beside the default build, every kernel of
# the chapter (a kernel such a part cannot hold is left out: the run says so).
: >"$tmp.smem"
for ch in $CHAPTERS; do
    settings "$ch"
    [ "$GEMM" != 0 ] || continue
    limits=$(smem_settings "$ch")
    [ -n "$limits" ] || continue
    kernels=$(gemm_names "$ch"),cublas
    echo "== $ch: the settings for $(echo $limits | sed 's/ / and /') B of shared memory per block"
    : >"$tmp.one"
    run_csv "tests/build/logs/bench-$ch-smem-default.log" "$tmp.one" "$(bench_build "$ch")" --only "$kernels"
    awk -v l="$(make -s --no-print-directory -C "$ch" print-SMEM_PER_BLOCK)" '{ print $0 "," l }' "$tmp.one" >>"$tmp.smem"
    for l in $limits; do
        : >"$tmp.one"
        run_csv "tests/build/logs/bench-$ch-smem-$l.log" "$tmp.one" "$(bench_build "$ch" "smem:SMEM_PER_BLOCK=$l")" \
            --only "$kernels" --smem-limit "$l"
        awk -v l="$l" '{ print $0 "," l }' "$tmp.one" >>"$tmp.smem"
    done
done

header="gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
chapters=" $(echo $CHAPTERS) "
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
header="$header,smem_per_block"
merge "$dir/$slug-smem.csv" "$tmp.smem"
echo
echo "wrote $main, $variants and $dir/$slug-smem.csv ($gpu, commit $TUTORIAL_COMMIT)"
echo
awk -F, 'NR > 1 { printf "%-20s %-22s %9s %9s  %9s ms  %7s TFLOP/s  %7s%% of cuBLAS  %s\n", $6, $7, $8, $9, $12, $15, $16, $17 }' "$main"
