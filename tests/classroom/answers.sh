#!/usr/bin/env bash
# The measured answers of the chapters' questions (docs/instructor.md).
#
#   bash tests/classroom/answers.sh [times|profiles]    (default: both)
#     times    -> docs/results/<gpu>-answers.csv      as make bench writes them
#     profiles -> docs/results/<gpu>-answers-ncu.csv  as tests/profile.sh writes them
#
# Two kinds of question are measured here:
# - a knob setting or size that `make bench` does not already time: the
#   chapter is built with those knobs (tests/build/bench, as make bench does);
# - a code change: the instructor's solution, a patch in
#   tests/classroom/solutions/ named after the question (02-q5.patch is
#   chapter 02's question 5), is applied to a copy of the repository under
#   tests/build/answers/<patch>/, which is built and run the same way. The
#   rows' knobs column starts with the patch's name ("02-q5: BM=128 ...").
# Every timed row is verified, as in make bench (a patch that breaks the
# kernel fails here). The lesson's own rows are measured in the same run,
# beside the changed ones, so each answer compares like with like.
#
# ANSWERS_MATCH=REGEX measures only the entries (lines of the lists below)
# that match it, and keeps the files' other rows: a new row replaces an old
# one only where chapter, kernel, size and knobs are the same.
#
# The commit recorded is $TUTORIAL_COMMIT, else `git rev-parse HEAD`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib.sh

what=${1:-both}
case $what in times | profiles | both) ;; *) echo "usage: answers.sh [times|profiles]" >&2; exit 2 ;; esac
nvidia-smi -L >/dev/null 2>&1 || { echo "answers.sh: no NVIDIA GPU here" >&2; exit 3; }
export TUTORIAL_COMMIT=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
slug=$(gpu_slug)
out=docs/results/$slug-answers.csv
ncu_out=docs/results/$slug-answers-ncu.csv
tmp=$(mktemp)
rows=$(mktemp)
prof=$(mktemp)
trap 'rm -f "$tmp" "$rows" "$prof"' EXIT
solutions=$ROOT/tests/classroom/solutions

# timed: chapter | knob setting (comma-separated, "" for the default) | run arguments | patch ("" for none)
answers=(
    "01_naive|TILE=16|--only tiled,cublas|"
    "01_naive||--only blocked,cublas|"
    "01_naive||--only blocked|01-q3"
    "02_double_buffer||--only double_buffer,cublas|"
    "02_double_buffer||--only double_buffer|02-q2"
    "02_double_buffer||--only double_buffer|02-q5"
    "03_warp_specialized|PRODUCER_WARPS=2,STAGES=6|--only warp_specialized,cublas|"
    "03_warp_specialized||--only warp_specialized,cublas|"
    "03_warp_specialized|PRODUCER_WARPS=8|--only warp_specialized|"
    "03_warp_specialized|PRODUCER_WARPS=2|--only warp_specialized|"
    "03_warp_specialized||--only warp_specialized|02-q2"
    "03_warp_specialized|PRODUCER_WARPS=8|--only warp_specialized|02-q2"
    "03_warp_specialized|PRODUCER_WARPS=2|--only warp_specialized|02-q2"
    "04_persistent||--only tasks|"
    "04_persistent||--only tasks|04-q1-132"
    "04_persistent||--only tasks|04-q1-528"
    "04_persistent||--only warp_specialized,persistent,persistent_residual,cublas|"
    "04_persistent||--only persistent|04-q5"
    "04_persistent||--only warp_specialized,persistent,cublas --m 8192 --n 8192 --k 8192 --reps 8|"
    "04_persistent||--only persistent --m 8192 --n 8192 --k 8192 --reps 8|04-q5"
    "04_persistent||--only persistent|04-q2"
    "04_persistent||--only persistent_residual|04-q4"
    "04_persistent|PRODUCER_WARPS=4,STORER_WARPS=4|--only persistent_storer,persistent_storer_residual|"
    "04_persistent|PRODUCER_WARPS=4,STORER_WARPS=4|--only persistent_storer,persistent_storer_residual|04-q4"
    "05_cooperative_grid|THREADS=512|--only two_stage,sync|"
    "05_cooperative_grid|THREADS=1024|--only two_stage,sync|"
    "05_cooperative_grid||--only two_stage,sync|"
    "06_clusters_dsmem||--only clusters,cluster,cublas|"
    "06_clusters_dsmem||--only cluster|06-q1"
    "06_clusters_dsmem||--only cluster|06-q2"
    "06_clusters_dsmem|STAGES=2|--only cluster|"
    "06_clusters_dsmem|STAGES=2|--only cluster|06-q2"
    "06_clusters_dsmem||--only clusters|06-q3-256"
    "06_clusters_dsmem||--only clusters|06-q3-1536"
    "07_tma_multicast|CLUSTER_M=1,CLUSTER_N=4|--only tma_multicast,cublas|"
    "07_tma_multicast|CLUSTER_M=4,CLUSTER_N=1|--only tma_multicast|"
    "07_tma_multicast|PRODUCER_REGS=168,CONSUMER_REGS=168|--only tma,cublas|"
    "07_tma_multicast||--only tma,tma_multicast,cublas|"
    "07_tma_multicast||--only tma,tma_multicast,cublas|07-q5"
    "07_tma_multicast|STAGES=5|--only tma,tma_multicast,cublas|"
    "07_tma_multicast|STAGES=5|--only tma,tma_multicast|07-q6"
    "07_tma_multicast||--only tma,tma_multicast,cublas|07-q7"
    "07_tma_multicast||--only tma,tma_multicast,cublas|07-q8"
    "07_tma_multicast||--only tma,tma_multicast,cublas --m 8192 --n 8192 --k 8192 --reps 8|"
    "07_tma_multicast||--only tma,tma_multicast,cublas --m 8192 --n 8192 --k 8192 --reps 8|07-q7"
)
for e in 16 18 20 22 24 26; do answers+=("05_cooperative_grid||--only softmax --elements $((1 << e))|"); done

# profiled (one launch each, at the default size): chapter | knob setting | kernel | patch
profiles=(
    "01_naive||blocked|"
    "01_naive||blocked|01-q3"
    "02_double_buffer||double_buffer|"
    "02_double_buffer||double_buffer|02-q2"
    "02_double_buffer||double_buffer|02-q5"
    "03_warp_specialized||warp_specialized|"
    "03_warp_specialized||warp_specialized|02-q2"
    "04_persistent||persistent|"
    "04_persistent||persistent|04-q5"
    "06_clusters_dsmem||cluster|"
    "06_clusters_dsmem||cluster|06-q1"
    "06_clusters_dsmem||cluster|06-q2"
    "07_tma_multicast|CLUSTER_M=1,CLUSTER_N=4|tma_multicast|"
    "07_tma_multicast|CLUSTER_M=4,CLUSTER_N=1|tma_multicast|"
    "07_tma_multicast||tma|"
    "07_tma_multicast||tma|07-q5"
    "07_tma_multicast|STAGES=5|tma|"
    "07_tma_multicast|STAGES=5|tma|07-q6"
    "07_tma_multicast||tma_multicast|"
    "07_tma_multicast||tma_multicast|07-q8"
)
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active"
metrics+=",sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_inst_executed_op_shared_ld.sum"
metrics+=",l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum"
metrics+=",smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"
metrics+=",smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"
metrics+=",sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"

# ANSWERS_MATCH: keep the matching entries only
if [ -n "${ANSWERS_MATCH:-}" ]; then
    mapfile -t answers < <(printf '%s\n' "${answers[@]}" | grep -E -- "$ANSWERS_MATCH" || true)
    mapfile -t profiles < <(printf '%s\n' "${profiles[@]}" | grep -E -- "$ANSWERS_MATCH" || true)
fi

# merge FILE NEW KEYCOLS: FILE's rows whose key (the columns KEYCOLS) no row
# of NEW has, then NEW's rows; a full run (no ANSWERS_MATCH) keeps NEW only
merge() {
    [ -n "${ANSWERS_MATCH:-}" ] && [ -f "$1" ] || { cat "$2"; return; }
    awk -F, -v keys="$3" '
        function key(   i, n, c, k) { n = split(keys, c, " "); k = ""; for (i = 1; i <= n; i++) k = k SUBSEP $c[i]; return k }
        NR == FNR { seen[key()] = 1; next }
        FNR > 1 && !(key() in seen)' "$2" "$1"
    cat "$2"
}

# tree PATCH: the repository's root, or a copy of it with the solution applied (made once)
tree() {
    local p=$1 dir
    [ -z "$p" ] && { echo "$ROOT"; return; }
    dir=$ROOT/tests/build/answers/$p
    if [ ! -f "$dir/.applied" ]; then
        [ -f "$solutions/$p.patch" ] || { echo "answers.sh: no $solutions/$p.patch" >&2; return 1; }
        rm -rf "$dir" && mkdir -p "$dir"
        tar --exclude=./.git --exclude=./tests/build --exclude=./exercises --exclude='*/build' \
            --exclude='./[0-9][0-9]_*/run' --exclude=./docs/html --exclude=./handout.tar.gz -cf - . |
            tar -C "$dir" -xf -
        patch -p1 --quiet --no-backup-if-mismatch -d "$dir" <"$solutions/$p.patch" || {
            echo "answers.sh: $p.patch does not apply" >&2
            return 1
        }
        touch "$dir/.applied"
    fi
    echo "$dir"
}

# build CHAPTER KNOBS PATCH: the program (tests/build/bench of the tree)
build() {
    local r
    r=$(tree "$3") || return 1
    ROOT=$r bench_build "$1" "$2"
}

measure_times() {
    echo "== building"
    for a in "${answers[@]}"; do
        IFS='|' read -r ch knobs _ p <<<"$a"
        tree "$p" >/dev/null
    done
    # each build once (two builds of one directory at a time would collide)
    while IFS='|' read -r ch knobs p; do
        build "$ch" "$knobs" "$p" >/dev/null &
    done < <(for a in "${answers[@]}"; do
        IFS='|' read -r ch knobs _ p <<<"$a"
        echo "$ch|$knobs|$p"
    done | sort -u)
    wait

    mkdir -p tests/build/logs
    for a in "${answers[@]}"; do
        IFS='|' read -r ch knobs args p <<<"$a"
        echo "== $ch ${knobs:-(default build)} $args ${p:+(solution $p.patch)}"
        prog=$(build "$ch" "$knobs" "$p")
        # shellcheck disable=SC2086
        "$prog" $args --csv >"$tmp" 2>"tests/build/logs/answers.log" || {
            tail -n 20 tests/build/logs/answers.log >&2
            exit 1
        }
        # the solution's name in front of the knobs (column 11)
        tail -n +2 "$tmp" | awk -F, -v OFS=, -v p="$p" 'p != "" { $11 = p ": " $11 } { print }' >>"$rows"
    done
    merge "$out" "$rows" "6 7 8 9 10 11" >"$rows.all"
    {
        echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
        sort -t, -k6,6 -s "$rows.all"
    } >"$out"
    rm -f "$rows.all"
    echo "wrote $out"
}

measure_profiles() {
    echo "== profiling"
    : >"$prof"
    for a in "${profiles[@]}"; do
        IFS='|' read -r ch knobs kernel p <<<"$a"
        r=$(tree "$p")
        label="$kernel"
        [ -n "$p$knobs" ] && label="$kernel[${p:+$p${knobs:+ }}$(echo "$knobs" | tr ',' ' ')]"
        one=$(mktemp)
        if [ -n "$knobs" ]; then
            PROFILE_KERNELS="" PROFILE_VARIANTS="$kernel:$knobs" PROFILE_METRICS=$metrics PROFILE_OUT=$one \
                CHAPTERS=$ch bash "$r/tests/profile.sh" >/dev/null
        else
            PROFILE_KERNELS=$kernel PROFILE_VARIANTS="" PROFILE_METRICS=$metrics PROFILE_OUT=$one \
                CHAPTERS=$ch bash "$r/tests/profile.sh" >/dev/null
        fi
        tail -n +2 "$one" | awk -F, -v OFS=, -v l="$label" '{ $4 = l; print }' >>"$prof"
        rm -f "$one"
    done
    merge "$ncu_out" "$prof" "3 4 5" >"$prof.all"
    {
        echo "gpu,commit,chapter,kernel,metric,unit,value"
        sort -t, -k3,3 -s "$prof.all"
    } >"$ncu_out"
    rm -f "$prof.all"
    echo "wrote $ncu_out"
}

[ "$what" = profiles ] || measure_times
[ "$what" = times ] || measure_profiles
