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
# cuBLAS in its own chapter's run, at 4096^3 and 8192^3, and its
# tensor-core kernel (BENCH_KERNEL_tc, where it has one) as % of cuBLAS BF16.
progression_data() { # csv -> stdout: label, kernel, FP32 % at 4096, at 8192, tensor-core % at 4096, at 8192
    local ch
    for ch in [0-9][0-9]_*/; do
        ch=${ch%/}
        settings "$ch"
        [ "$GEMM" = 1 ] || continue
        awk -F, -v ch="$ch" -v k="$BENCH_KERNEL" -v t="${BENCH_KERNEL}_tc" '
            $6 == ch && $7 == k && $8 == 4096 { a = $16 }
            $6 == ch && $7 == k && $8 == 8192 { b = $16 }
            $6 == ch && $7 == t && $8 == 4096 { c = $16 }
            $6 == ch && $7 == t && $8 == 8192 { d = $16 }
            END { if (a != "") printf "%s %s%s\t%s\t%s\t%s\t%s\t%s\n", substr(ch, 1, 2), k, (c == "" ? "" : "(_tc)"), k, a,
                                      (b == "" ? "NaN" : b),
                                      (c == "" ? "NaN" : c), (d == "" ? "NaN" : d) }' "$1"
    done
}
progression() {
    local csv=docs/results/h100.csv gpu
    progression_data "$csv" >"$tmp/progression.dat"
    gpu=$(awk -F, 'NR == 2 { print $1 }' "$csv")
    gnuplot -c docs/figures/progression.gp "$tmp/progression.dat" "$tmp/progression.svg" \
        "Each chapter's lesson kernels as % of their own line's cuBLAS, on the $gpu"
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
    docs/results/h100.csv 06_clusters_dsmem 1000 2162688 exchange_dsmem exchange_dsmem_split exchange_global

# Timelines from the committed traces (docs/traces/*.csv, make traces).
# Each kind of step has one colour on every page.
kind_colour() { # kind -> RGB as an integer, for gnuplot's "rgb variable"
    case $1 in
    compute | task | work) echo 5808463 ;;  # #58a14f green: the work
    "wait full" | grid.sync) echo 14767961 ;; # #e15759 red: waiting for data or for the grid
    "wait empty") echo 15896107 ;;           # #f28e2b orange: waiting for a free stage
    issue) echo 5142951 ;;                   # #4e79a7 blue: issuing copies
    load) echo 7780274 ;;                    # #76b7b2 teal: loading synchronously
    share) echo 10253663 ;;                  # #9c755f brown: stores into the cluster
    store) echo 11565729 ;;                  # #b07aa1 purple: writing C
    fetch) echo 15583560 ;;                  # #edc948 yellow: taking work from the queue
    *) echo 12234924 ;;                      # #bab0ac grey: barriers (sync, cluster sync)
    esac
}
# timeline_warps CSV KERNEL "WARPS" NBLOCKS: the first NBLOCKS blocks to start
# on SM 0 in KERNEL's launch, one row per listed warp of each
timeline_warps() {
    awk -F, -v k="$2" -v warps=" $3 " -v nb="$4" '
        /^#/ || $1 != k || $2 != 0 { next }
        { n++; b[n] = $3; w[n] = $4; r[n] = $5; e[n] = $6; s[n] = $8; f[n] = $9
          if (!($3 in first) || $8 < first[$3]) first[$3] = $8 }
        END {
            for (x in first) { order[++nbk] = x }
            for (i = 1; i <= nbk; i++) for (j = i + 1; j <= nbk; j++)
                if (first[order[j]] < first[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
            t0 = first[order[1]]
            row = 0
            for (i = 1; i <= nb && i <= nbk; i++) {
                split(warps, ws, " ")
                for (j = 1; j in ws; j++) rowof[order[i] "," ws[j]] = row++
            }
            for (m = 1; m <= n; m++) {
                key = b[m] "," w[m]
                if (!(key in rowof)) continue
                printf "%.3f\t%.3f\t%d\t%s\t%s\n", (s[m] - t0) / 1000, (f[m] - t0) / 1000, rowof[key], e[m], \
                    "block " b[m] " warp " w[m] (r[m] != "" ? " (" r[m] ")" : "")
            }
        }' "$1"
}
# timeline_kernels CSV KERNEL...: one row per kernel, every traced step of SM 0's blocks in it
timeline_kernels() {
    local csv=$1
    shift
    awk -F, -v ks=" $* " '
        /^#/ || index(ks, " " $1 " ") == 0 || $2 != 0 { next }
        { if (!($1 in row)) { row[$1] = nr++ }
          printf "%.3f\t%.3f\t%d\t%s\t%s\n", $8 / 1000, $9 / 1000, row[$1], $6, $1 }' "$csv"
}
timeline() { # name title xmax opacity mode args...
    local name=$1 title=$2 xmax=$3 opacity=$4 mode=$5 kind legend=""
    shift 5
    # longest first, so that a step nested in another is drawn over it
    "timeline_$mode" "$@" | awk -F'\t' '{ print $2 - $1 "\t" $0 }' | sort -t$'\t' -k1,1gr -s | cut -f2- |
        while IFS=$'\t' read -r a b r k l; do
            printf '%s\t%s\t%s\t%s\t%s\n' "$a" "$b" "$r" "$(kind_colour "$k")" "$l"
        done >"$tmp/$name.dat"
    while read -r kind; do
        legend+="keyentry with boxes fc rgb $(kind_colour "$kind") fillstyle solid 1.0 title '$kind', "
    done < <("timeline_$mode" "$@" | cut -f4 | awk '!seen[$0]++')
    echo "legend = \"${legend%, }\"" >"$tmp/$name.legend.gp"
    gnuplot -c docs/figures/timeline.gp "$tmp/$name.dat" "$tmp/$name.svg" "$title" "$xmax" \
        "$tmp/$name.legend.gp" "$opacity"
}
tl() { # name csv title xmax opacity mode args...: a timeline, if its trace is committed
    local name=$1 csv=$2 title=$3 xmax=$4 opacity=$5 mode=$6
    shift 6
    [ -f "$csv" ] || return 0
    figure "$name" "$csv" docs/figures/timeline.gp -- timeline "$name" "$title" "$xmax" "$opacity" "$mode" "$csv" "$@"
}
T=docs/traces
tl timeline-01 $T/01_naive.csv "Chapter 01, blocked: two blocks per SM; each loads, waits, computes, waits" \
    30 1 warps blocked "0 7" 2
tl timeline-02 $T/02_double_buffer.csv "Chapter 02: the copies of tile t+1 are issued before the wait for tile t" \
    30 1 warps double_buffer "0 7" 2
tl timeline-03 $T/03_warp_specialized.csv "Chapter 03: producer warps (0-3) fill the ring, consumer warps (4-11) compute" \
    65 1 warps warp_specialized "0 3 4 11" 1
tl timeline-01-tc $T/01_naive.csv "Chapter 01, blocked_tc: two blocks per SM; each loads, waits, multiplies on the tensor cores, waits" \
    30 1 warps blocked_tc "0 4" 2
tl timeline-02-tc $T/02_double_buffer.csv "Chapter 02, double_buffer_tc: copies of later tiles in flight while the tensor cores multiply" \
    16 1 warps double_buffer_tc "0 4" 2
tl timeline-03-tc $T/03_warp_specialized.csv "Chapter 03, warp_specialized_tc: warpgroup 0 copies, warpgroups 1 and 2 multiply" \
    14 1 warps warp_specialized_tc "0 4 8" 1
tl timeline-04 $T/04_persistent.csv "Chapter 04: one block per SM takes tile after tile from the queue" \
    60 1 warps persistent "0 3 4 11" 1
tl timeline-04-tc $T/04_persistent.csv "Chapter 04, persistent_tc: warpgroup 0 fills the ring for the next tile while warpgroups 1 and 2 store C" \
    32 1 warps persistent_tc "0 4 8" 1
tl timeline-05 $T/05_cooperative_grid.csv "Chapter 05: two stages per iteration, as launches, as a graph, with grid.sync()" \
    100 0.35 kernels two_stage_launches two_stage_graph two_stage_cooperative
tl timeline-06 $T/06_clusters_dsmem.csv "Chapter 06: producer warps (0-3) copy and forward A parts, consumer warps (4-11) compute" \
    65 1 warps cluster "0 3 4 11" 1
tl timeline-07 $T/07_tma_multicast.csv "Chapter 07: one thread of warp 0 issues every copy; warps 4-11 compute" \
    60 1 warps tma_multicast "0 4 11" 1
tl timeline-06-tc $T/06_clusters_dsmem.csv "Chapter 06, cluster_tc: warpgroup 0 copies and hands half of each B tile to the peer; warpgroups 1 and 2 multiply" \
    18 1 warps cluster_tc "0 4 8" 1
tl timeline-07-tc $T/07_tma_multicast.csv "Chapter 07, tma_multicast_tc: warpgroups 1 and 2 store part of each tile while multiplying the next" \
    44 1 warps tma_multicast_tc "0 4 8" 1

# Chapter 01's three kernels and cuBLAS, milliseconds at 4096^3, from its own run.
ch01_data() {
    awk -F, '$6 == "01_naive" && $8 == 4096 && !seen[$7]++ { printf "%s\t%.4g\n", $7, $12 }' docs/results/h100.csv
}
ch01_chart() {
    ch01_data >"$tmp/ch01-kernels.dat"
    gnuplot -c docs/figures/bars.gp "$tmp/ch01-kernels.dat" "$tmp/ch01-kernels.svg" \
        "Chapter 01's kernels and cuBLAS, FP32, 4096^3" "milliseconds per GEMM" lin
}
figure ch01-kernels docs/results/h100.csv docs/figures/bars.gp -- ch01_chart

# Structure diagrams
for d in ring cluster multicast; do
    figure "$d" "docs/figures/$d.dot" -- dot -Tsvg "docs/figures/$d.dot" -o "$tmp/$d.svg"
done

exit $status
