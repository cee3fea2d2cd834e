#!/usr/bin/env bash
# The tensor-core line's two MMA paths on this GPU, side by side (make bench
# runs it last; it also runs alone):
#
#   wgmma     the default build for sm_90a (a Hopper GPU)
#   mma_sync  the same ARCH with TC_MMA=mma_sync: the warp-level mma.sync +
#             ldmatrix path every other GPU from sm_80 runs
#   sm_80     a build for ARCH=sm_80 (chapters 01-04), whose compute_80 PTX
#             the driver compiles for this GPU: the exact code an A100 runs
#
# For each build and chapter: every tensor-core kernel timed beside cuBLAS
# BF16 at 4096^3 and 8192^3, each run verified element by element; and
# chapter 01's instruction ceilings (./run --only ceiling). make test-gpu
# verifies the same builds at odd shapes and under compute-sanitizer
# (tests/test_gpu.py, test_mma_sync_path).
#
# Writes docs/results/<gpu>-mma.csv (RESULTS_DIR=dir: there instead): the
# results columns and `build`; rows of builds run now replace their old ones.
#   bash tests/mma_paths.sh                     all of it
#   BUILDS="mma_sync" CHAPTERS="04_persistent" SIZES=4096 bash tests/mma_paths.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

nvidia-smi -L >/dev/null 2>&1 || { echo "tests/mma_paths.sh: no NVIDIA GPU here" >&2; exit 3; }
slug=$(gpu_slug)
TUTORIAL_COMMIT=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
export TUTORIAL_COMMIT
BUILDS=${BUILDS:-wgmma mma_sync sm_80}
SIZES=${SIZES:-4096 8192}
CHAPTERS=${CHAPTERS:-$(for d in [0-9][0-9]_*/; do [ -f "$d/kernel_tc.cu" ] && echo "${d%/}"; done)}
dir=${RESULTS_DIR:-docs/results}
out="$dir/$slug-mma.csv"
logs=tests/build/logs
mkdir -p "$dir" "$logs"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"

args_of() { # build: its make arguments
    case $1 in
    wgmma) echo "" ;;
    mma_sync) echo "TC_MMA=mma_sync" ;;
    sm_80) echo "ARCH=sm_80" ;;
    esac
}
runs_on() { # build chapter: 0 when the build exists for the chapter
    [ "$1" != sm_80 ] || [ "$(make -s --no-print-directory -C "$2" print-MIN_CC)" -le 80 ]
}
prog() { echo "tests/build/mma/$2/$1/run"; }

echo "== building (tests/build/mma, in parallel)"
for b in $BUILDS; do
    for ch in $CHAPTERS; do
        runs_on "$b" "$ch" || continue
        while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
        d=$ROOT/tests/build/mma/$ch/$b
        # shellcheck disable=SC2046
        (make --no-print-directory -C "$ch" -j2 WERROR=1 BUILD="$d" BIN="$d/run" $(args_of "$b") \
            >"$logs/mma-build-$ch-$b.log" 2>&1 || echo "BUILD FAILED: $ch $b ($logs/mma-build-$ch-$b.log)") &
    done
done
wait
failed=0
tc_of() { gemm_names "$1" | tr ',' '\n' | grep '_tc$' | paste -sd,; }
echo "== timing (one at a time)"
for b in $BUILDS; do
    for ch in $CHAPTERS; do
        runs_on "$b" "$ch" || continue
        p=$(prog "$b" "$ch")
        [ -x "$p" ] || { failed=1; continue; }
        for n in $SIZES; do
            reps=20; [ "$n" = 8192 ] && reps=10
            if "$p" --only "$(tc_of "$ch"),cublas_bf16" --m "$n" --n "$n" --k "$n" --reps "$reps" --csv >"$tmp" \
                2>"$logs/mma-$ch-$b-$n.log"; then
                tail -n +2 "$tmp" | awk -v b="$b" '{ print $0 "," b }' >>"$tmp.rows"
            else
                echo "FAILED: $ch $b $n^3"; tail -n 15 "$logs/mma-$ch-$b-$n.log"; failed=1
            fi
        done
    done
done
# The ceilings, from the wgmma build (it has all three instructions) or the first one there is.
for b in $BUILDS; do
    p=$(prog "$b" 01_naive)
    [ -x "$p" ] || continue
    if "$p" --only ceiling --reps 10 --csv >"$tmp" 2>"$logs/mma-ceiling.log"; then
        tail -n +2 "$tmp" | awk -v b="$b" '{ print $0 "," b }' >>"$tmp.rows"
    else
        echo "FAILED: ceilings"; tail -n 15 "$logs/mma-ceiling.log"; failed=1
    fi
    break
done

header="gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified,build"
{
    echo "$header"
    {
        [ -f "$out" ] && awk -F, -v bs=" $BUILDS " 'NR > 1 && index(bs, " " $NF " ") == 0' "$out"
        cat "$tmp.rows"
    } | sort -t, -k18,18 -k6,6 -s
} >"$out.new" && mv "$out.new" "$out"
echo
echo "wrote $out (commit $TUTORIAL_COMMIT)"
awk -F, 'NR > 1 { printf "%-9s %-20s %-22s %6s  %8s TFLOP/s  %7s%% of cuBLAS  %s\n", $18, $6, $7, $8, $15, $16, $17 }' "$out"
exit $failed
