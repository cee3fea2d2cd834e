#!/usr/bin/env bash
# How long compute-sanitizer takes on chapter 04's tasks-that-create-tasks
# demonstration, and why (docs/results/<gpu>-sanitizer-cost.txt; chapter 04's
# page quotes it). spawn_levels_device makes one launch per possible depth
# of the tree (--spawn-depth + 2 of them, 10,002 by default), each a full
# grid whether or not that depth has tasks: if racecheck's cost grows with
# the depth bound at a fixed tree, it is the launches that cost, not work
# that waits for other work.
#
#   bash tests/sanitizer_cost.sh [TOOL]      (default racecheck; needs a GPU)
set -u
cd "$(dirname "$0")/.."
tool=${1:-racecheck}
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
make -s --no-print-directory -C 04_persistent >/dev/null || exit 1
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n1)
echo "# compute-sanitizer --tool $tool on 04_persistent/run; $gpu; commit $(git rev-parse --short=12 HEAD 2>/dev/null); $(date -u +%FT%TZ)"
echo "# seconds  exit  arguments; then the run's spawn table under the tool (kernel, knobs, median/min/max ms per run, us per task, speedup, verified)"
one() { # limit args...
    local limit=$1 s e rc out
    shift
    out=$(mktemp)
    s=$(date +%s%N)
    timeout "$limit" "$san" --tool "$tool" --error-exitcode 99 ./04_persistent/run "$@" >"$out" 2>&1
    rc=$?
    e=$(date +%s%N)
    printf '%8.1f  %4s  %s\n' "$(((e - s) / 1000000))e-3" "$rc" "$*"
    # the rows of the spawn table: name, verified column, launches knob
    grep -E '^spawn_' "$out" | sed 's/^/             /'
    grep -E 'SUMMARY|watchdog' "$out" | sed 's/^/             /'
    rm -f "$out"
}
# without the tool, the default tree (depth bound 10,000)
s=$(date +%s%N)
./04_persistent/run --only spawn --reps 1 --warmup 0 >/dev/null 2>&1
rc=$?
printf '%8.1f  %4s  %s\n' "$((($(date +%s%N) - s) / 1000000))e-3" "$rc" "(no sanitizer) --only spawn --reps 1 --warmup 0"
# Larger depth bounds: a tree whose nodes have one child on average dies out
# early, so it barely grows (spawn_levels_host's launches give its real
# depth), while spawn_levels_device's launches grow with the bound.
for d in 20 100 300; do
    one $((60 + d / 3)) --only spawn --spawn-depth "$d" --reps 1 --warmup 0 --timeout 600
done
# the default bound, as a student would run it (the watchdog at 60 s per phase)
one 75 --only spawn --reps 1 --warmup 0
# the tasks demonstration (1,000 tasks, a launch each, and the queue)
one 90 --only tasks --reps 1 --warmup 0 --timeout 600
# the suite's own racecheck run (tests/chapters/04_persistent.sh's
# SANITIZE_ARGS: every kernel of the chapter, smaller demonstrations), and
# the shape that ran into the watchdog with the default depth bound; the
# rows each run verified, so the kernels it covered are on record
# shellcheck source=tests/chapters/04_persistent.sh
. tests/chapters/04_persistent.sh
rows() { grep -E ' (yes|NO|n/a)$' | awk '{ printf "             %s\n", $1 }' | sort | uniq -c | awk '{ printf "%s(%d) ", $2, $1 } END { print "" }'; }
for args in "${SANITIZE_ARGS[*]}" "--m 65 --n 129 --k 257 --tasks 50 --spawn-roots 20 --spawn-depth 30"; do
    out=$(mktemp)
    s=$(date +%s%N)
    # shellcheck disable=SC2086
    timeout 300 "$san" --tool "$tool" --error-exitcode 99 ./04_persistent/run $args --reps 1 --warmup 0 --timeout 600 >"$out" 2>&1
    rc=$?
    printf '%8.1f  %4s  %s\n' "$((($(date +%s%N) - s) / 1000000))e-3" "$rc" "$args --reps 1 --warmup 0 --timeout 600"
    printf '             rows verified: '; rows <"$out"
    grep -E 'SUMMARY' "$out" | sed 's/^/             /'
    rm -f "$out"
done
