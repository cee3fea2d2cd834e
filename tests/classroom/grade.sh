#!/usr/bin/env bash
# make grade-NN SUBMISSIONS=DIR: grade a class's chapter NN.
#
# DIR holds one folder per student, each with the chapter's code as
# `make exercise-NN` wrote it: DIR/<student>/NN_<name>/ (or
# DIR/<student>/exercises/NN/NN_<name>/, or the chapter's files directly in
# DIR/<student>/). For each student:
#  1. a fresh copy of this repository is made (its harness, main.c, Makefile,
#     common/ and verification: never the student's), and only the files
#     that hold the chapter's exercise regions are taken from the submission;
#     a submission that changed main.c, the Makefile, common/ or its code
#     outside the exercise regions is graded all the same, and the feedback
#     says what was set aside or found;
#  2. make check-NN runs on that copy (tests/classroom/check.sh): the PTX
#     part per exercise, and on a GPU correctness, racecheck and speed;
#  3. the points of each exercise come from the rubric (tests/classroom/
#     rubric.csv, or RUBRIC=file): all of them when its PTX part passes and,
#     on a GPU, the chapter verifies with no race; none otherwise; without a
#     GPU, "pending".
# Writes DIR/grades-NN.csv (student, exercise, ptx, correct, racecheck,
# speed, points, max, and an empty column for the written questions' mark)
# and DIR/feedback-NN/<student>.txt (the check's report and what was set
# aside). Exit 0 when every submission was graded (whatever its marks), 2
# on bad usage.
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/lib.sh
. tests/lib.sh

n=${1:-}
ch=$(chapter_of "$n")
subs=${SUBMISSIONS:-}
if [ -z "$n" ] || [ -z "$ch" ] || [ -z "$subs" ] || [ ! -d "$subs" ]; then
    echo "usage: make grade-NN SUBMISSIONS=DIR (one folder per student), NN one of: $(chapter_numbers)" >&2
    exit 2
fi
subs=$(cd "$subs" && pwd)
rubric=${RUBRIC:-$ROOT/tests/classroom/rubric.csv}
[ -f "$rubric" ] || { echo "grade-$n: no rubric $rubric" >&2; exit 2; }
files=$(region_files "$ch")
ids=$(cd "$ch" && awk -v mode=list -f "$ROOT/tests/classroom/regions.awk" $files | cut -f3 | sort -u)
work=$ROOT/tests/build/grade-$n
rm -rf "$work"
mkdir -p "$work" "$subs/feedback-$n"

# where a submission keeps the chapter's code
code_of() { # student dir
    local d
    for d in "$1/$ch" "$1/exercises/$n/$ch" "$1"; do
        [ -f "$d/kernel.cu" ] && { echo "$d"; return; }
    done
}

gradebook=$subs/grades-$n.csv
echo "student,exercise,ptx,correct,racecheck,speed,points,max,questions" >"$gradebook"
graded=0
for s in "$subs"/*/; do
    s=${s%/}
    name=$(basename "$s")
    case $name in feedback-*) continue ;; esac
    fb=$subs/feedback-$n/$name.txt
    code=$(code_of "$s")
    {
        echo "grade-$n: $name ($ch)"
        if [ -z "$code" ]; then
            echo "no chapter code found (looked for $ch/kernel.cu, exercises/$n/$ch/kernel.cu, kernel.cu)"
        fi
    } >"$fb"
    if [ -z "$code" ]; then
        for id in $ids; do
            echo "$name,$id,missing,-,-,-,0,$(awk -F, -v id="$id" '$1 == id { print $2 }' "$rubric"),"
        done >>"$gradebook"
        continue
    fi
    copy=$work/$name
    copy_repo "$copy"
    # only the files with exercise regions come from the submission
    for f in $files; do
        if [ -f "$code/$f" ]; then
            cp "$code/$f" "$copy/$ch/$f"
            # code changed outside the regions: shown, not graded away
            if ! cmp -s <(awk -v mode=strip -f tests/classroom/regions.awk "$ch/$f" 2>/dev/null) \
                <(awk -v mode=strip -f tests/classroom/regions.awk "$code/$f" 2>/dev/null); then
                echo "note: $f differs from the lesson outside its exercise regions (graded as submitted)" >>"$fb"
            fi
        else
            echo "note: $f is missing from the submission: the starter's is used" >>"$fb"
            awk -v mode=strip -v only="$n" -f tests/classroom/regions.awk "$ch/$f" >"$copy/$ch/$f"
        fi
    done
    for f in main.c Makefile; do
        if [ -f "$code/$f" ] && ! cmp -s "$code/$f" "$ch/$f"; then
            echo "set aside: the submission's $f differs from the repository's; graded with the repository's" >>"$fb"
        fi
    done
    if [ -d "$code/../common" ] && ! diff -rq "$code/../common" common >/dev/null 2>&1; then
        echo "set aside: the submission's common/ differs from the repository's; graded with the repository's" >>"$fb"
    fi
    results=$work/$name.tsv
    echo >>"$fb"
    : >"$results"
    CHECK_RESULTS=$results LESSON_ROOT=$ROOT DIR="$copy/$ch" bash "$copy/tests/classroom/check.sh" "$n" >>"$fb" 2>&1
    rc=$?
    echo "(make check-$n exit status: $rc)" >>"$fb"
    # one gradebook row per exercise
    awk -F'\t' -v name="$name" -v ids="$ids" -v rubric="$rubric" '
        BEGIN {
            while ((getline line < rubric) > 0) { split(line, r, ","); pts[r[1]] = r[2] }
            gpu = "n/a"; race = "n/a"; speed = "-"
        }
        $1 ~ /^[0-9][0-9]\.[0-9]+$/ { ptx[$1] = $2 == "ok" ? "ok" : $2 == "FAIL" ? "FAIL" : "gpu-only"; next }
        $1 == "default size" || $1 ~ /^[0-9]+x[0-9]+x[0-9]+$/ || $1 == "build" {
            if ($2 == "FAIL") gpu = "no"; else if ($2 == "ok" && gpu != "no") gpu = "yes"; next }
        $1 == "racecheck" { race = $2 == "ok" ? "ok" : $2 == "FAIL" ? "FAIL" : "n/a"; next }
        $1 == "speed" && match($3, /[0-9.]+%$/) { speed = substr($3, RSTART, RLENGTH); next }
        END {
            n = split(ids, id, "\n")
            for (i = 1; i <= n; ++i) {
                e = id[i]; p = (e in ptx) ? ptx[e] : "not-run"
                max = (e in pts) ? pts[e] : 0
                if (p == "FAIL" || p == "not-run" || gpu == "no" || race == "FAIL") got = 0
                else if (gpu == "n/a") got = "pending"
                else got = max
                printf "%s,%s,%s,%s,%s,%s,%s,%s,\n", name, e, p, gpu, race, speed, got, max
            }
        }' "$results" >>"$gradebook"
    graded=$((graded + 1))
    echo "graded $name: $(tail -n 2 "$fb" | head -n 1 | sed 's/^ *//')"
done
echo "wrote ${gradebook#"$ROOT"/} ($graded graded) and feedback-$n/<student>.txt; the questions column is yours to fill"
