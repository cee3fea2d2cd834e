#!/usr/bin/env bash
# make check-NN: check a student's code for chapter NN.
#
#   make check-03                        the starter in exercises/03/ (make exercise-03)
#   make check-03 DIR=path/to/03_warp_specialized   another copy of the chapter
#   make check-03 DIR=03_warp_specialized           the lesson code itself
#
# 1. Its exercise regions: which are still the starter's TODO.
# 2. Its kernel.cu compiles, and the PTX has each exercise's technique
#    (tests/chapters/<chapter>.sh, CHECK_PTX). No GPU needed.
#    A CHECK_PTX rule is "EXERCISE FUNCTION REGEX [COUNT] [after:R] [before:R] [if:R]"
#    (words without spaces; grep -E regexes, [[:space:]] for a space):
#      FUNCTION   "-": the whole PTX; else the kernels whose name contains it
#      REGEX      alone: at least one line of that PTX matches it
#      COUNT      >=N, =N or <=N: how many lines match (the lesson's count,
#                 measured at the default knobs: make ptx, then grep -c)
#      after:R    the last line matching REGEX comes after the last matching R
#                 (a release after the reads); not judged when none matches R
#      before:R   the first line matching REGEX comes before the first matching R
#      if:R       the rule is judged only once R is in the PTX (another
#                 exercise's code it needs); until then its row says so
#    An exercise's row fails when one of its rules does. CHECK_GPU entries,
#    "EXERCISE what", name what the PTX cannot show: the row says that the
#    GPU part decides it. tests/classroom/wrong/ holds mistakes, each
#    expected to fail here (expect: ptx) or only on the GPU (expect: gpu).
# 3. On a GPU: the program verifies every element at the default size and at
#    odd shapes (or the chapter's cases), racecheck finds no hazard on a small
#    problem, and its time is set beside the lesson kernel's (timed in the
#    same way here, or, in a handout, the committed measurement for this GPU).
# Exit 0 when everything passes, 1 when something fails, 2 bad usage (or a
# CHECK_PTX rule it cannot read), 3 when the PTX part passed and there is no
# GPU (or too old a one) for the rest.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/lib.sh
. tests/lib.sh

n=${1:-}
ch=$(chapter_of "$n")
if [ -z "$n" ] || [ -z "$ch" ]; then
    echo "usage: make check-NN [DIR=the chapter's code], NN one of: $(chapter_numbers)" >&2
    exit 2
fi
settings "$ch"
handout=0
[ -f HANDOUT ] && handout=1
if [ -z "${DIR:-}" ]; then
    if [ $handout = 1 ]; then DIR=$ch; else DIR=exercises/$n/$ch; fi
fi
if [ ! -f "$DIR/kernel.cu" ]; then
    echo "check-$n: no chapter code in $DIR (make exercise-$n writes the starter there)" >&2
    exit 2
fi
DIR=$(cd "$DIR" && pwd)
# LESSON_ROOT (make grade-NN, which checks a copy of the repository holding
# the student's files): the repository whose lesson kernel the time is set
# beside
LESSON_ROOT=${LESSON_ROOT:-$ROOT}
lesson=0
[ "$DIR" = "$LESSON_ROOT/$ch" ] && [ $handout = 0 ] && lesson=1
WORK=$DIR/build/check
mkdir -p "$WORK"
LOG=$WORK/check.log
: >"$LOG"
failed=0

say() { printf '%s\n' "$*"; }
# CHECK_RESULTS=file (make grade-NN): every row also as a line "label<TAB>status<TAB>detail"
row() {
    printf '  %-14s %-9s %s\n' "$1" "$2" "$3"
    [ -z "${CHECK_RESULTS:-}" ] || printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$CHECK_RESULTS"
}
bad() { failed=1; row "$1" FAIL "$2"; }

say "check-$n: $ch, the code in ${DIR#"$ROOT"/}$([ $lesson = 1 ] && echo ' (the lesson code itself)')"
say "  (every command's output: ${LOG#"$ROOT"/})"

# ---------------------------------------------------------------- regions
regions=$(cd "$DIR" && awk -v mode=list -f "$ROOT/tests/classroom/regions.awk" \
    $(region_files .)) || {
    say "the exercise markers are broken (see above): put back the lines // ---- exercise NN.N ... ----"
    exit 1
}
ids=$(echo "$regions" | cut -f3 | sort -u)
[ -n "$ids" ] || { say "no exercise regions in ${DIR#"$ROOT"/}: is it chapter $n's code?"; exit 2; }

# ------------------------------------------------------------------- PTX
say ""
say "exercises (PTX of kernel.cu: no GPU needed)"
if ! make --no-print-directory -C "$DIR" ptx BUILD="$WORK" >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" | sed 's/^/  | /'
    bad "kernel.cu" "does not compile (above)"
    say "FAILED"
    exit 1
fi
ptx=$WORK/kernel.ptx
# ptx_of FUNC: the PTX of the kernels whose name contains FUNC ("-": all of it)
ptx_of() {
    if [ "$1" = - ]; then cat "$ptx"; else
        awk -v f="$1" '/^\.(visible )?\.entry / { on = index($0, f) > 0 } on' "$ptx"
    fi
}
# ptx_rule FUNC REGEX [COUNT] [after:R2] [before:R2] [if:R3]: one CHECK_PTX
# rule on the PTX of the kernels FUNC names. Prints a phrase for the row;
# exit 0 when the rule holds, 1 when it does not, 3 when its if: is not met
# (not judged yet), 2 when it cannot be read. See the top of this file.
# order_rule after|before R2: whether the last match of $re (in $func)
# comes after the last line matching R2, or its first before the first;
# adds the verdict to $say (a rule's line); no R2 at all is not judged.
order_rule() {
    local pick=tail word=last cmp=-gt at at2
    [ "$1" = before ] && pick=head word=first cmp=-lt
    at=$(ptx_of "$func" | grep -nE "$re" | $pick -n1 | cut -d: -f1)
    at2=$(ptx_of "$func" | grep -nE "$2" | $pick -n1 | cut -d: -f1)
    if [ -z "$at2" ]; then
        say+=" (its order not judged: no $(shown "$2"))"
    elif [ "$at" "$cmp" "$at2" ]; then
        say+=", the $word $1 the $word $(shown "$2")"
    else
        say+=", but the $word one not $1 the $word $(shown "$2")"
        return 1
    fi
}

ptx_rule() {
    local func=${1:-} re=${2:-} count="" after="" before="" cond="" w n op want at at2 say ok=0
    [ -n "$re" ] || { echo "not EXERCISE FUNCTION REGEX [COUNT] [after:R] [before:R] [if:R]"; return 2; }
    shift 2
    for w in "$@"; do
        case $w in
        after:?*) after=${w#after:} ;;
        before:?*) before=${w#before:} ;;
        if:?*) cond=${w#if:} ;;
        ">="[0-9]* | "<="[0-9]* | "="[0-9]*) count=$w ;;
        *) echo "'$w' is not >=N, =N, <=N, after:REGEX, before:REGEX or if:REGEX"; return 2 ;;
        esac
    done
    say=$(shown "$re")
    if [ -n "$cond" ] && ! ptx_of "$func" | grep -qE "$cond"; then
        echo "$say not judged yet (only once the PTX has $(shown "$cond"))"
        return 3
    fi
    n=$(ptx_of "$func" | grep -cE "$re")
    if [ -z "$count" ]; then
        [ "$n" -gt 0 ] || { say="no $say" ok=1; }
    else
        op=${count%%[0-9]*} want=${count#"$op"}
        case $op in
        ">=") [ "$n" -ge "$want" ] ;; "<=") [ "$n" -le "$want" ] ;; *) [ "$n" -eq "$want" ] ;;
        esac || ok=1
        say+=" x$n ($([ $ok = 1 ] && echo "wants $count" || echo "$count"))"
    fi
    # the order: the last match after the last of R2, the first before the first of R2
    [ -z "$after" ] || [ "$n" -eq 0 ] || order_rule after "$after" || ok=1
    [ -z "$before" ] || [ "$n" -eq 0 ] || order_rule before "$before" || ok=1
    [ "$func" = - ] || say+=" in $func"
    echo "$say"
    return $ok
}
# shown REGEX: a regex as the rows show it (no backslashes, [[:space:]]+ as a space)
shown() { local r=${1//\\/}; r=${r//\[\[:space:\]\]+/ }; echo "${r//\[\[:space:\]\]\*/ }"; }
for id in $ids; do
    title=$(echo "$regions" | awk -F'\t' -v id="$id" '$3 == id { print $4; exit }')
    state=$(echo "$regions" | awk -F'\t' -v id="$id" '$3 == id && $5 == "written" { w = 1 } END { print w ? "written" : "todo" }')
    found="" missing="" later=""
    for c in "${CHECK_PTX[@]}"; do
        read -r -a rule <<<"$c"
        [ "${rule[0]}" = "$id" ] || continue
        what=$(ptx_rule "${rule[@]:1}")
        case $? in
        0) found+="${found:+; }$what" ;;
        1) missing+="${missing:+; }$what" ;;
        3) later+="${later:+; }$what" ;;
        *) echo "tests/chapters/$ch.sh: CHECK_PTX rule '$c': $what" >&2; exit 2 ;;
        esac
    done
    # CHECK_GPU: what the PTX cannot show of this exercise (the row says so)
    gpu=""
    for c in "${CHECK_GPU[@]}"; do
        [ "${c%% *}" = "$id" ] && gpu="the PTX cannot show ${c#* }: the GPU part decides"
    done
    if [ -n "$missing" ]; then
        bad "$id" "$title [$state]: the PTX has $missing${later:+; $later}"
    elif [ -n "$found" ]; then
        row "$id" ok "$title [$state]: the PTX has $found${later:+; $later}${gpu:+; $gpu}"
    elif [ -n "$later" ]; then
        row "$id" "-" "$title [$state]: $later${gpu:+; $gpu}"
    else
        row "$id" "-" "$title [$state]: nothing in the PTX to look for; ${gpu:-the GPU part checks it}"
    fi
done

# CUDA_VISIBLE_DEVICES= (set, empty) hides the GPUs, as it does from ./run
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ] && [ -z "$CUDA_VISIBLE_DEVICES" ] || ! nvidia-smi -L >/dev/null 2>&1; then
    say ""
    if [ $failed = 1 ]; then
        say "FAILED (the PTX part; the GPU part needs an NVIDIA GPU, and there is none here)"
        exit 1
    fi
    say "the PTX part passed. The rest (correctness, racecheck, speed) needs an NVIDIA GPU: there is none here."
    exit 3
fi

# ------------------------------------------------------------------- GPU
say ""
say "the program (on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1))"
prog=$WORK/run
if ! make --no-print-directory -C "$DIR" BUILD="$WORK" BIN="$prog" >>"$LOG" 2>&1; then
    tail -n 20 "$LOG" | sed 's/^/  | /'
    bad build "the chapter does not build (above)"
    say "FAILED"
    exit 1
fi
row build ok "${prog#"$ROOT"/}"

what_exit() {
    case $1 in
    0) echo "verified" ;; 1) echo "wrong results (exit 1)" ;; 3) echo "cannot run here (exit 3)" ;;
    4) echo "CUDA error (exit 4)" ;; 5) echo "hung: the watchdog ended it (exit 5)" ;; *) echo "exit $1" ;;
    esac
}
run_case() { # label args...: a verified run of the student's kernels
    local label=$1 rc
    shift
    echo "\$ run --only $CHECK_ONLY $*" >>"$LOG"
    "$prog" --only "$CHECK_ONLY" "$@" >>"$LOG" 2>&1
    rc=$?
    if [ $rc = 0 ]; then row "$label" ok "$(what_exit 0)"; else bad "$label" "$(what_exit $rc)"; fi
    return $rc
}

run_case "default size" --reps 2 --warmup 1 --timeout 30
rc=$?
if [ $rc = 3 ]; then
    say "this GPU cannot run chapter $n (its minimum: $(make -s --no-print-directory -C "$ch" print-MIN_CC_FOR))"
    exit 3
fi
if [ $rc = 0 ]; then
    if [ "$GEMM" = 1 ]; then
        seed=200
        # and a short K: every output tile is one or two stages of the ring, so
        # the producers run whole tiles ahead of the consumers
        for shape in 1x1x1 17x33x9 127x255x63 4097x4095x4099 4096x4096x32; do
            IFS=x read -r m k_n k <<<"$shape"
            seed=$((seed + 1))
            run_case "$shape" --m "$m" --n "$k_n" --k "$k" --reps 1 --warmup 0 --seed $seed --timeout 30
        done
    else
        for c in "${QUICK_CASES[@]}"; do
            # the student's kernels at the case's sizes (a case's own --only picks other parts)
            c=$(case_words "$c" | tr ' ' '\n' | grep -v '^--only=' | tr '\n' ' ')
            # shellcheck disable=SC2086
            run_case "$(echo $c | sed 's/--//g')" $c --reps 1 --warmup 0 --timeout 30
        done
    fi

    san=$(sanitizer)
    if [ -z "$san" ]; then
        bad racecheck "compute-sanitizer not found"
    else
        args=("${SANITIZE_ARGS[@]}")
        [ ${#args[@]} -gt 0 ] || args=(--m 130 --n 200 --k 70)
        echo "\$ compute-sanitizer --tool racecheck run --only $CHECK_ONLY ${args[*]}" >>"$LOG"
        out=$("$san" --tool racecheck --error-exitcode 99 "$prog" --only "$CHECK_ONLY" "${args[@]}" --reps 1 \
            --warmup 0 --timeout 600 2>&1)
        rc=$?
        echo "$out" >>"$LOG"
        if [ $rc = 0 ] && echo "$out" | grep -q 'RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)'; then
            row racecheck ok "no hazard (${args[*]})"
        else
            bad racecheck "$(echo "$out" | grep -m1 'RACECHECK SUMMARY' || echo "exit $rc")"
        fi
    fi

    # speed: the student's kernels against the lesson's, at the default size
    mine=$WORK/mine.csv theirs=$WORK/lesson.csv
    "$prog" --only "$CHECK_ONLY" --csv >"$mine" 2>>"$LOG"
    source_note=
    if [ $handout = 0 ]; then
        if lesson_prog=$(ROOT=$LESSON_ROOT bench_build "$ch") &&
            "$lesson_prog" --only "$CHECK_ONLY" --csv >"$theirs" 2>>"$LOG"; then
            source_note="timed here, just after"
        fi
    else
        csv=docs/results/$(gpu_slug).csv
        if [ -f "$csv" ]; then
            awk -F, -v ch="$ch" 'NR == 1 || $6 == ch' "$csv" >"$theirs"
            source_note="committed in ${csv}, not timed here"
        fi
    fi
    if [ -n "$source_note" ]; then
        awk -F, -v note="$source_note" '
            NR == FNR { if (FNR > 1) lesson[$7 "," $8 "," $9 "," $10] = $12; next }
            FNR > 1 && ($7 "," $8 "," $9 "," $10) in lesson {
                l = lesson[$7 "," $8 "," $9 "," $10]
                printf "%s %dx%dx%d: %.3f ms, the lesson kernel %.3f ms (%s): %.1f%%\n",
                    $7, $8, $9, $10, $12, l, note, 100 * l / $12
                shown = 1
            }
            END { if (!shown) print "no lesson time to compare with" }' \
            "$theirs" "$mine" | while read -r line; do row speed - "$line"; done
    else
        row speed - "no lesson time to compare with$([ $handout = 1 ] && echo " (no docs/results file for this GPU)")"
    fi
else
    row "odd shapes" - "not run: the default size fails first"
    row racecheck - "not run: the default size fails first"
fi

say ""
if [ $failed = 0 ]; then say "PASSED"; exit 0; fi
say "FAILED"
exit 1
