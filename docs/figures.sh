#!/usr/bin/env bash
# make figures: render the SVGs in docs/images/ from committed data and the
# sources in docs/figures/ (gnuplot for charts, Graphviz's dot for diagrams).
#
#   bash docs/figures.sh           render every figure whose inputs changed
#   bash docs/figures.sh --check   exit 1 if a figure is older than its inputs
#
# Each SVG's second line records a hash of its inputs (data, source, this
# script); --check recomputes it, so it needs neither tool and does not
# depend on their versions. Pages show the figures as Markdown images.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh

check=0
[ "${1:-}" = "--check" ] && check=1
status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/images

hash_of() { cat "$@" docs/figures.sh | sha256sum | cut -c1-16; }

# figure NAME INPUTS... -- COMMAND...: COMMAND writes $tmp/NAME.svg from the inputs
figure() {
    local name=$1 inputs=() svg=docs/images/$1.svg h
    shift
    while [ "$1" != -- ]; do inputs+=("$1"); shift; done
    shift
    h=$(hash_of "${inputs[@]}")
    if [ "$(sed -n '2s/^<!-- inputs: \([0-9a-f]*\) -->$/\1/p' "$svg" 2>/dev/null)" = "$h" ]; then return; fi
    if [ $check -eq 1 ]; then
        echo "$svg is not up to date with ${inputs[*]} (run make figures)"
        status=1
        return
    fi
    "$@"
    { sed -n 1p "$tmp/$name.svg"; echo "<!-- inputs: $h -->"; sed 1d "$tmp/$name.svg"; } >"$svg"
    echo "rendered $svg"
}

# The progression: each GEMM chapter's lesson kernel (BENCH_KERNEL) as % of
# cuBLAS in its own chapter's run, at 4096^3 and 8192^3.
progression_data() { # csv -> stdout: label, kernel, % at 4096, % at 8192
    local ch
    for ch in [0-9][0-9]_*/; do
        ch=${ch%/}
        settings "$ch"
        [ "$GEMM" = 1 ] || continue
        awk -F, -v ch="$ch" -v k="$BENCH_KERNEL" '
            $6 == ch && $7 == k && $8 == 4096 { a = $16 }
            $6 == ch && $7 == k && $8 == 8192 { b = $16 }
            END { if (a != "") printf "%s %s\t%s\t%s\t%s\n", substr(ch, 1, 2), k, k, a, (b == "" ? "NaN" : b) }' "$1"
    done
}
progression() {
    local csv=docs/results/h100.csv gpu
    progression_data "$csv" >"$tmp/progression.dat"
    gpu=$(awk -F, 'NR == 2 { print $1 }' "$csv")
    gnuplot -c docs/figures/progression.gp "$tmp/progression.dat" "$tmp/progression.svg" \
        "Each chapter's lesson kernel, FP32, on the $gpu"
}
figure progression docs/results/h100.csv docs/figures/progression.gp tests/chapters/*.sh -- progression

# Demonstrations that are not a GEMM: time per item, from their rows in the
# results (chapter, kernel prefix, m, n; the first rows that match, in the
# order the run printed them).
demo_data() { # csv chapter m n kernel... -> label<TAB>microseconds per item
    local csv=$1 ch=$2 m=$3 n=$4
    shift 4
    awk -F, -v ch="$ch" -v m="$m" -v n="$n" -v ks="$*" '
        BEGIN { nk = split(ks, want, " ") }
        $6 == ch && $8 == m && $9 == n {
            for (i = 1; i <= nk; i++) if ($7 == want[i] && !(i in got)) {
                label = $7
                if ($7 == "sync_grid") { label = $11; sub(/.* grid=/, "grid.sync(), grid ", label); if (label in seen) next }
                seen[label] = 1
                if ($7 != "sync_grid") got[i] = 1
                printf "%s\t%.4g\n", label, $12 * 1000.0 / m
            }
        }' "$csv"
}
demo_chart() { # name title axis scale csv chapter m n kernels...
    local name=$1 title=$2 axis=$3 scale=$4
    shift 4
    demo_data "$@" >"$tmp/$name.dat"
    gnuplot -c docs/figures/bars.gp "$tmp/$name.dat" "$tmp/$name.svg" "$title" "$axis" "$scale"
}
figure tasks docs/results/h100.csv docs/figures/bars.gp -- demo_chart tasks \
    "1,000 uneven tasks: four ways to run them (chapter 04)" "microseconds per task (log scale)" log \
    docs/results/h100.csv 04_persistent 1000 4654753 tasks_one_by_one tasks_graph tasks_batched tasks_persistent
figure barrier docs/results/h100.csv docs/figures/bars.gp -- demo_chart barrier \
    "A barrier across the grid: launches, a graph, grid.sync() (chapter 05)" "microseconds per barrier" lin \
    docs/results/h100.csv 05_cooperative_grid 1000 0 sync_empty_launches sync_empty_graph sync_grid
figure exchange docs/results/h100.csv docs/figures/bars.gp -- demo_chart exchange \
    "Blocks exchanging data: DSMEM against global memory (chapter 06)" "microseconds per round" lin \
    docs/results/h100.csv 06_clusters_dsmem 1000 2162688 exchange_dsmem exchange_global

# Structure diagrams
for d in ring cluster multicast; do
    figure "$d" "docs/figures/$d.dot" -- dot -Tsvg "docs/figures/$d.dot" -o "$tmp/$d.svg"
done

exit $status
