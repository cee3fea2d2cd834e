#!/usr/bin/env bash
# Profile every chapter's kernels and cuBLAS once with Nsight Compute and
# write the metrics the chapter pages discuss to <dir>/<gpu>-ncu.csv
# (columns: gpu,commit,chapter,kernel,metric,unit,value). Rows of the
# chapters profiled now replace their old rows; other chapters' stay.
#
#   RESULTS_DIR=dir bash tests/profile.sh     (default dir: docs/results)
#   CHAPTERS=03_warp_specialized bash tests/profile.sh
#
# Each chapter runs its PROFILE_KERNELS (tests/chapters/<chapter>.sh) with
# --no-verify --reps 1 --warmup 0, so every kernel is launched exactly once,
# in that order, and the n-th profiled launch is the n-th name.
# PROFILE_VARIANTS (knob settings) add the chapter's BENCH_KERNEL built that
# way, labelled "kernel[KNOB=value]". PROFILE_SKIP (a regex) names helper
# kernels a launch runs besides the profiled one (chapter 07's transpose),
# which are left out. Builds go to tests/build/bench, as make bench's do.
# Clocks are left as they are (--clock-control none), like the benchmark's.
#
# For one experiment (tests/storer_sweep.sh), the environment can replace
# the chapter's lists and the output: PROFILE_KERNELS (empty: profile only
# the variants), PROFILE_VARIANTS, PROFILE_ARGS (added to every run, e.g. a
# shape), PROFILE_METRICS (the metrics) and PROFILE_OUT (the CSV to write).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh
NCU=$(ncu_path) || { echo "ncu not found" >&2; exit 3; }

# ncu leaves out a metric it does not know; the CSV then simply lacks it.
# PROFILE_METRICS (comma-separated) replaces the list, for one experiment.
metrics=${PROFILE_METRICS:-$(echo "gpu__time_duration.sum
sm__throughput.avg.pct_of_peak_sustained_elapsed
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
smsp__issue_active.avg.pct_of_peak_sustained_active
smsp__inst_executed.sum
sm__warps_active.avg.pct_of_peak_sustained_active
launch__registers_per_thread
smsp__average_warp_latency_per_inst_issued.ratio
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio
smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
lts__t_sectors_op_read.sum
lts__t_sectors_srcunit_tex_op_read.sum
l1tex__m_xbar2l1tex_read_bytes.sum
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
sm__sass_thread_inst_executed_op_ffma_pred_on.sum
lts__t_bytes.sum
lts__t_sector_hit_rate.pct
dram__bytes_read.sum" | tr '\n' ',' | sed 's/,$//')}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
slug=$(gpu_slug)
# Lists given in the environment replace the chapter's (settings() below would overwrite them).
[ -n "${PROFILE_KERNELS+set}" ] && KERNELS_FROM_ENV=$PROFILE_KERNELS
[ -n "${PROFILE_VARIANTS+set}" ] && VARIANTS_FROM_ENV=$PROFILE_VARIANTS
commit=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
dir=${RESULTS_DIR:-docs/results}
out=${PROFILE_OUT:-$dir/$slug-ncu.csv}
mkdir -p "$dir" tests/build/logs
chapters=" ${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d / | tr '\n' ' ')} "
new=$(mktemp)
trap 'rm -f "$new"' EXIT

profile_run() { # chapter program kernels labels: each kernel's timed launch, metrics into $new
    local ch=$1 prog=$2 kernels=$3 labels=$4 raw skip=$PROFILE_SKIP
    # (skip: launches that are not one of the kernels, chapter 07's staging pass)
    raw="tests/build/logs/ncu-$ch-$(echo "$labels" | tr -c 'A-Za-z0-9_.-' '_').csv"
    "$NCU" --clock-control none --metrics "$metrics" --csv --page raw \
        "$prog" --only "$kernels" --no-verify --reps 1 --warmup 0 ${PROFILE_ARGS:-} >"$raw" 2>"$raw.err"
    # ncu --page raw --csv: a header row of metric names, a row of units, one row per launch.
    python3 - "$raw" "$gpu" "$commit" "$ch" "$labels" "$metrics" "$skip" >>"$new" <<'PY'
import csv, re, sys
raw, gpu, commit, chapter, labels, metrics, skip = sys.argv[1:]
rows = [r for r in csv.reader(open(raw)) if r and (r[0] == "ID" or r[0].isdigit() or r[0] == "")]
header = next(r for r in rows if r[0] == "ID")
units = rows[rows.index(header) + 1]
kcol = header.index("Kernel Name")
launches = [r for r in rows if r[0].isdigit() and not (skip and re.match(skip, r[kcol]))]
names = labels.split(",")
# the harness launches each kernel twice under --no-verify --reps 1 --warmup 0:
# its first run (which reports a refused launch), then the timed one, kept here
if len(launches) != 2 * len(names):
    sys.exit(f"{chapter}: {len(launches)} profiled launches for {len(names)} kernels (two each expected)")
launches = launches[1::2]
w = csv.writer(sys.stdout, lineterminator="\n")
for name, r in zip(names, launches):
    # the function that really ran (cuBLAS picks its own), without the argument
    # list; a template's commas stay (the field is quoted, and it is the last)
    w.writerow([gpu, commit, chapter, name, "kernel", "", r[kcol].split("(")[0]])
    for m in metrics.split(","):
        if m in header:
            i = header.index(m)
            w.writerow([gpu, commit, chapter, name, m, units[i], r[i].replace(",", "")])
PY
}

for ch in $chapters; do
    settings "$ch"
    kernels=${KERNELS_FROM_ENV-$PROFILE_KERNELS}
    [ -n "$kernels" ] && profile_run "$ch" "$(bench_build "$ch")" "$kernels" "$kernels"
    for v in ${VARIANTS_FROM_ENV-${PROFILE_VARIANTS[@]}}; do
        profile_run "$ch" "$(bench_build "$ch" "$v")" "$(variant_kernel "$v")" \
            "$(variant_kernel "$v")[$(variant_knobs "$v" | tr ',' ' ')]"
    done
done

merge_profile "$out" "$new" "$chapters"
echo "wrote $out"
