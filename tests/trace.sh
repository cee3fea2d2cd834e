#!/usr/bin/env bash
# make traces: record each chapter's committed trace, and the tracing's cost.
#
# For each chapter, in tests/build/bench (the user's builds stay as they are):
#  - the TRACE=1 build, run with TRACE_ARGS (tests/chapters/<chapter>.sh) and
#    --trace, and again with TRACE_MORE_ARGS if the chapter sets them: the
#    trace the pages' timelines are drawn from, committed as
#    docs/traces/<chapter>.csv; the JSON, for Perfetto, stays in
#    tests/build/traces/ (./run --trace FILE makes one anywhere);
#  - for a GEMM chapter, the cost of tracing at the default size: the default
#    build's median, the TRACE=1 build's median (trace points compiled in, not
#    armed) and one traced launch (armed), all of BENCH_KERNEL, in one run each.
# Writes docs/results/<gpu>-trace.csv (RESULTS_DIR=dir and TRACE_DIR=dir
# write elsewhere). The commit recorded is $TUTORIAL_COMMIT, else git's.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

nvidia-smi -L >/dev/null 2>&1 || { echo "make traces: no NVIDIA GPU here" >&2; exit 3; }
slug=$(gpu_slug)
export TUTORIAL_COMMIT=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
CHAPTERS=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}
traces=${TRACE_DIR:-docs/traces}
json_dir=tests/build/traces
results=${RESULTS_DIR:-docs/results}/$slug-trace.csv
mkdir -p "$traces" "$json_dir" "$(dirname "$results")" tests/build/logs
new=$(mktemp)
trap 'rm -f "$new" "$new.json" "$new.csv"' EXIT

echo "== building (tests/build/bench, TRACE=1 and default)"
for ch in $CHAPTERS; do
    bench_build "$ch" >/dev/null &
    bench_build "$ch" TRACE=1 >/dev/null &
done
wait

median_of() { # csv kernel: the ms_median of KERNEL's row in a --csv output
    awk -F, -v k="$2" 'NR > 1 && $7 == k { print $12; exit }' "$1"
}

for ch in $CHAPTERS; do
    settings "$ch"
    prog=$(bench_build "$ch" TRACE=1)
    echo "== $ch"
    "$prog" --trace "$json_dir/$ch.json" "${TRACE_ARGS[@]}" >"tests/build/logs/trace-$ch.log" 2>&1 ||
        { tail -n 20 "tests/build/logs/trace-$ch.log" >&2; exit 1; }
    cp "$json_dir/$ch.csv" "$traces/$ch.csv"
    if [ ${#TRACE_MORE_ARGS[@]} -gt 0 ]; then
        # The second run's launches join the first's: their comment lines
        # after the first's, their rows after its rows (the JSON stays apart).
        "$prog" --trace "$json_dir/$ch-more.json" "${TRACE_MORE_ARGS[@]}" >>"tests/build/logs/trace-$ch.log" 2>&1 ||
            { tail -n 20 "tests/build/logs/trace-$ch.log" >&2; exit 1; }
        { grep '^#' "$json_dir/$ch.csv"; grep '^# launch' "$json_dir/$ch-more.csv"
          grep -v '^#' "$json_dir/$ch.csv"; grep -v '^#' "$json_dir/$ch-more.csv" | tail -n +2; } >"$traces/$ch.csv"
    fi
    grep '^trace' "tests/build/logs/trace-$ch.log"
    [ "$GEMM" = 1 ] || continue
    # The cost: default build, TRACE=1 build unarmed, one armed launch (4096^3).
    "$(bench_build "$ch")" --only "$BENCH_KERNEL" --csv >"$new" 2>/dev/null
    plain=$(median_of "$new" "$BENCH_KERNEL")
    "$prog" --only "$BENCH_KERNEL" --csv --trace "$new.json" >"$new.out" 2>/dev/null
    built=$(median_of "$new.out" "$BENCH_KERNEL")
    line=$(grep "^# launch $BENCH_KERNEL:" "$new.csv")
    traced=$(echo "$line" | sed 's/.*traced launch \([0-9.]*\) ms.*/\1/')
    steps=$(echo "$line" | sed 's/.*: \([0-9]*\) steps recorded, \([0-9]*\) chunks dropped.*/\1 \2/')
    head -n 2 "$new.out" | tail -n 1 | cut -d, -f1-5,8-10 | {
        IFS=, read -r gpu driver cuda commit date m n k
        echo "$gpu,$driver,$cuda,$commit,$date,$ch,$BENCH_KERNEL,$m,$n,$k,${steps% *},${steps#* },$plain,$built,$traced"
    } >>"$results.new"
    rm -f "$new.out"
    echo "   cost at the default size: default build $plain ms, TRACE=1 build $built ms, traced launch $traced ms"
done

{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,steps,dropped,ms_default_build,ms_trace_build,ms_traced_launch"
    {
        [ -f "$results" ] && awk -F, -v chs=" $(echo $CHAPTERS) " 'NR > 1 && index(chs, " " $6 " ") == 0' "$results"
        if [ -f "$results.new" ]; then cat "$results.new"; fi
    } | sort -t, -k6,6 -s
} >"$results.tmp" && mv "$results.tmp" "$results" && rm -f "$results.new"
echo "wrote $traces/*.csv, $json_dir/*.json and $results"
