#!/usr/bin/env bash
# tests/grading_bench.sh: make grade-NN on a GPU machine, measured: students
# per hour on one GPU lane and on every GPU of the machine, and every wrong
# solution of the library failing in whichever copy it changes.
#
#   bash tests/grading_bench.sh                 every chapter, all lanes; 02 and 04 on one lane too
#   CHAPTERS="02 04" ONE_LANE="04" bash tests/grading_bench.sh
#
# The class of a chapter is the lesson, the untouched starter and each wrong
# solution of tests/classroom/wrong/ (tests/classroom/library_class.py);
# library_class.py --check then wants the lesson's every point, none for
# the starter, and none for each wrong solution's exercise. Writes
# docs/results/<gpu>-grading.csv (this run's rows beside the earlier ones)
# and the gradebooks to tests/build/grading/.
set -u
cd "$(dirname "$0")/.."
. tests/lib.sh
nums=${CHAPTERS:-01 02 03 04 05 06 07}
one=${ONE_LANE:-02 04}
gpus=$(nvidia-smi -L | wc -l)
lanes=$(seq -s' ' 0 $((gpus - 1)))
jobs=$(nproc)
slug=$(gpu_slug)
csv=docs/results/$slug-grading.csv
w=tests/build/grading
mkdir -p "$w"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
cuda=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
commit=${TUTORIAL_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
machine="${gpus} GPUs, $(nproc) cores"
rows=$w/rows.csv
: >"$rows"
status=0
grade() { # chapter-number lanes label
    local n=$1 l=$2 label=$3 class=$w/class-$1 out=$w/grades-$1-$3 t0 t1 s
    rm -rf "$out"
    t0=$(date +%s.%N)
    GPUS="$l" JOBS=$jobs GRADEBOOK=$out SUBMISSIONS=$class python3 tests/classroom/grade.py "$n" >"$w/grade-$n-$label.log" 2>&1
    t1=$(date +%s.%N)
    s=$(python3 -c "print(round($t1 - $t0, 1))")
    students=$(ls "$class" | wc -l)
    if python3 tests/classroom/library_class.py "$n" "$class" --check "$out/grades-$n.csv" >"$w/check-$n-$label.log"; then
        checked=yes
    else
        checked=NO
        status=1
    fi
    g=$(python3 -c "import json; print(round(json.load(open('$out/timing.json'))['seconds'], 1))" 2>/dev/null || echo NA)
    echo "$gpu,$driver,$cuda,$commit,$date,$machine,$(chapter_of "$n"),$students,$(echo "$l" | wc -w),$jobs,$g,$s,$(python3 -c "print(round(3600 * $students / $g, 1))" 2>/dev/null || echo NA),$checked" >>"$rows"
    echo "chapter $n, $(echo "$l" | wc -w) lane(s): $students folders in $s s; library check: $checked"
}
for n in $nums; do
    python3 tests/classroom/library_class.py "$n" "$w/class-$n" >/dev/null
    grade "$n" "$lanes" all
    case " $one " in *" $n "*) [ "$gpus" -gt 1 ] && grade "$n" 0 one ;; esac
done
{
    echo "# make grade-NN on the library class of each chapter (the lesson, the starter, every wrong solution), LANES GPU lanes and"
    echo "# CPU_JOBS CPU jobs: seconds_grading from the first student's start to the last one's end (grade.py's timing.json),"
    echo "# seconds_wall from make grade-NN's start (the lesson's and the starter's builds before the students included);"
    echo "# students_per_hour from seconds_grading; checked: library_class.py --check passed"
    echo "gpu,driver,cuda,commit,date,machine,chapter,students,lanes,cpu_jobs,seconds_grading,seconds_wall,students_per_hour,checked"
    [ -f "$csv" ] && grep -v '^#' "$csv" | tail -n +2 | grep -v "^$gpu,.*,$commit,"
    cat "$rows"
} >"$csv.new" && mv "$csv.new" "$csv"
cat "$rows"
exit $status
