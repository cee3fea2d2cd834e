#!/usr/bin/env bash
# Interleaved A/B timing of the knob settings whose difference from the
# default is too small to trust from one run (AB_VARIANTS in
# tests/chapters/<chapter>.sh). Each round runs the default build, then
# every setting's build, one after another, at 4096^3; ROUNDS rounds
# (default 5). Every row is verified.
#
#   bash tests/ab.sh                      every chapter with AB_VARIANTS
#   CHAPTERS=07_tma_multicast ROUNDS=7 bash tests/ab.sh
#
# A change against the commit before it, interleaved the same way: AB_OLD
# names a copy of that commit's tree (git archive COMMIT | tar -x -C DIR)
# and AB_OLD_COMMIT the commit; each round runs this tree's default build
# and then that tree's, both with --only AB_ONLY (kernels of both), and no
# knob settings:
#   AB_OLD=/tmp/old AB_OLD_COMMIT=9320552 AB_ONLY=persistent_tc,cublas_bf16 CHAPTERS=04_persistent bash tests/ab.sh
#
# Writes docs/results/<gpu>-ab.csv (RESULTS_DIR=dir: there instead; the
# results columns and a round column; the chapters run now replace their
# rows) and <gpu>-ab-summary.csv (tests/ab_summary.py: per setting the
# median round, the fastest and slowest round).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

nvidia-smi -L >/dev/null 2>&1 || { echo "tests/ab.sh: no NVIDIA GPU here" >&2; exit 3; }
slug=$(gpu_slug)
[ -n "${TUTORIAL_COMMIT:-}" ] || TUTORIAL_COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
export TUTORIAL_COMMIT
ROUNDS=${ROUNDS:-5}
dir=${RESULTS_DIR:-docs/results}
CHAPTERS=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}
mkdir -p "$dir" tests/build/logs
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"

echo "== building (tests/build/bench, $(nproc) at a time)"
old_build() { # chapter: the other commit's default build of it (AB_OLD)
    local d=$ROOT/tests/build/bench/$1/old
    make --no-print-directory -j4 -C "$AB_OLD/$1" BUILD="$d" BIN="$d/run" >"tests/build/logs/build-$1-old.log" 2>&1 &&
        echo "$d/run"
}
for ch in $CHAPTERS; do
    settings "$ch"
    [ -z "${AB_OLD:-}" ] || AB_VARIANTS=()
    if [ -n "${AB_OLD:-}" ]; then old_build "$ch" >/dev/null & fi
    [ ${#AB_VARIANTS[@]} -gt 0 ] || [ -n "${AB_OLD:-}" ] || continue
    for v in "" "${AB_VARIANTS[@]}"; do
        while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
        bench_build "$ch" "$v" >/dev/null &
    done
done
while [ -n "$(jobs -rp)" ]; do wait -n; done

run() { # round program args...: append the CSV rows with the round
    local r=$1
    shift
    "$@" --csv >"$tmp" 2>>tests/build/logs/ab.log || { echo "FAILED: $*" >&2; exit 1; }
    tail -n +2 "$tmp" | sed "s/\$/,$r/" >>"$tmp.rows"
}
for ch in $CHAPTERS; do
    settings "$ch"
    if [ -n "${AB_OLD:-}" ]; then
        echo "== $ch: this tree against $AB_OLD_COMMIT, $ROUNDS rounds"
        for r in $(seq 1 "$ROUNDS"); do
            run "$r" "$(bench_build "$ch")" --only "$AB_ONLY"
            TUTORIAL_COMMIT=$AB_OLD_COMMIT run "$r" "$ROOT/tests/build/bench/$ch/old/run" --only "$AB_ONLY"
        done
        continue
    fi
    [ ${#AB_VARIANTS[@]} -gt 0 ] || continue
    kernels=$(for v in "${AB_VARIANTS[@]}"; do variant_kernel "$v"; done | sort -u | tr '\n' ',')
    yard=$(for v in "${AB_VARIANTS[@]}"; do case $(variant_kernel "$v") in *_tc) echo cublas_bf16 ;; *) echo cublas ;; esac; done | sort -u | tr '\n' ',')
    echo "== $ch: ${#AB_VARIANTS[@]} settings, $ROUNDS rounds"
    for r in $(seq 1 "$ROUNDS"); do
        run "$r" "$(bench_build "$ch")" --only "${kernels}${yard%,}"
        for v in "${AB_VARIANTS[@]}"; do
            run "$r" "$(bench_build "$ch" "$v")" --only "$(variant_kernel "$v")"
        done
    done
done

header="gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified,round"
chapters=" $(echo $CHAPTERS) "
out="$dir/$slug-ab.csv"
{
    echo "$header"
    {
        [ -f "$out" ] && awk -F, -v chs="$chapters" 'NR > 1 && index(chs, " " $6 " ") == 0' "$out"
        cat "$tmp.rows"
    } | sort -t, -k6,6 -s
} >"$out.new" && mv "$out.new" "$out"
python3 tests/ab_summary.py "$out" >"$dir/$slug-ab-summary.csv"
echo "wrote $out and $dir/$slug-ab-summary.csv"
