#!/usr/bin/env bash
# make handout: the student copy of the repository, handout.tar.gz.
#
#   make handout                 every exercise region stripped to its TODO
#   make handout KEEP="01 02"    chapters 01 and 02 keep their answers (for a
#                                class that starts later, or skips them)
#
# The copy is the repository's files (git's tracked and untracked-but-not-
# ignored files, without build outputs), with:
# - each exercise region of the chapters not in KEEP replaced by the
#   starter's TODO and stub (common/regions.awk), in place, so a
#   student edits NN_<name>/ itself and runs make check-NN; that includes
#   the regions of those exercises in other files (a variant's or a later
#   chapter's copy of the same code), so no answer is left in the copy
#   (tests/classroom/leaks.sh, which make test runs on it);
# - the test programs that use a lesson's technique (tests/gpu/
#   pipeline_synccheck.cu) left out;
# - the instructor's key left out: docs/instructor.md and
#   docs/instructor-notes.md and the lines that link to them, the
#   questions' solutions (tests/classroom/solutions/, answers.sh) and
#   their measured results (docs/results/*-answers*.csv),
#   and the wrong solutions (tests/classroom/wrong/: their diffs show the
#   lesson code);
# - a file HANDOUT, which tells the test suite and make check-NN that this
#   is a handout: make test then checks everything but the chapters' own
#   answers (their PTX techniques and GPU runs are make check-NN's job);
# - the diff pages regenerated from the stripped kernels.
# Later chapters use earlier chapters' code: chapter 01's compute step
# (exercise 01.3) is in every GEMM chapter up to 06, and chapter 03's
# hand-offs are in 04's kernels, so their kernels verify only once those are
# written, or with KEEP=01 (or 03) (docs/instructor-notes.md has the list).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/lib.sh
. tests/lib.sh

[ ! -f HANDOUT ] || { echo "this is a handout already" >&2; exit 2; }
keep=" ${KEEP:-} "
for k in ${KEEP:-}; do
    ls -d "$k"_*/ >/dev/null 2>&1 || { echo "KEEP: no chapter $k" >&2; exit 2; }
done

name=$(basename "$ROOT")-handout
stage=$ROOT/tests/build/handout
out=$stage/$name
rm -rf "$stage"
mkdir -p "$out"

# the files (copy_repo, tests/lib.sh), and the commit they are from
copy_repo "$out"
commit=unknown
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ]; then
    commit=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD 2>/dev/null || echo "+changes")
fi

stripped="" kept="" only=""
for chdir in "$out"/[0-9][0-9]_*/; do
    ch=$(basename "$chdir")
    if [[ "$keep" == *" ${ch%%_*} "* ]]; then kept+=" $ch"; else stripped+=" $ch" only+=" ${ch%%_*}"; fi
done
# Every region of a stripped chapter's exercise, wherever it is: a later
# chapter's or a variant's copy of an earlier exercise's code is a region of
# that exercise too (regions.awk, -v only).
for chdir in "$out"/[0-9][0-9]_*/; do
    ch=$(basename "$chdir")
    for f in $(region_files "$chdir"); do
        awk -v mode=strip -v only="$only" -f common/regions.awk "$chdir/$f" >"$chdir/$f.stripped"
        mv "$chdir/$f.stripped" "$chdir/$f"
        if awk -v mode=list -f common/regions.awk "$chdir/$f" |
            awk -F'\t' -v only=" $only " '$5 == "written" && index(only, " " substr($3, 1, 2) " ")' | grep -q .; then
            echo "handout: $ch/$f still has a written region" >&2
            exit 1
        fi
    done
done

# the instructor's key: the answers page and its notes, the solutions of
# the questions that change code, their measured results, the wrong
# solutions, and the test program built on a lesson's pipeline
rm -rf "$out/docs/instructor.md" "$out/docs/instructor-notes.md" "$out/tests/classroom/solutions" "$out/tests/classroom/answers.sh" \
    "$out/tests/classroom/wrong" "$out/tests/classroom/hostile_class.py" "$out/tests/classroom/hostile_runtime.py" "$out/tests/classroom/library_class.py" "$out/tests/gpu/pipeline_synccheck.cu" \
    "$out"/docs/results/*-answers.csv "$out"/docs/results/*-answers-ncu.csv
# The pages mark what points to them: <!-- instructor --> ... <!-- end instructor -->
# blocks go, as do the layout's and the Doxyfile's mentions; any other
# mention stops the handout (a page would be left pointing at nothing).
for f in $(grep -rl 'instructor' "$out" --include='*.md' --include=Doxyfile || true); do
    sed -i -e '/^<!-- instructor -->$/,/^<!-- end instructor -->$/d' -e 's/ instructor\.md,//' \
        -e 's/ instructor-notes\.md,//' -e '/^INPUT *+= *docs\/instructor\.md$/d' \
        -e '/^INPUT *+= *docs\/instructor-notes\.md$/d' "$f"
done
if grep -rn 'instructor\.md\|instructor-notes\.md\|@ref instructor\|\\ref instructor' "$out" --include='*.md' --include=Doxyfile; then
    echo "handout: the lines above point to the instructor's pages: put them in an <!-- instructor --> block" >&2
    exit 1
fi

cat >"$out/HANDOUT" <<EOF
This is a student handout of the tutorial, made by \`make handout\` from
commit $commit on $(date +%Y-%m-%d).

Exercise regions stripped to their TODO in:${stripped:- none}
Answers kept in:${kept:- none}

Each exercise is a region of a chapter's code marked
    // ---- exercise NN.N: what to do ----
with hints under it. Write your code between the markers, then
    make chapter-NN && ./run      build and run the chapter
    make check-NN                 check it: PTX, correctness, races, speed
The instructor's answers are not in this copy.
EOF

# (NO_PAGES=1: not, for a handout only searched for answers: the suite's KEEP=03 one)
[ "${NO_PAGES:-0}" = 1 ] || (cd "$out" && python3 docs/gen_pages.py >/dev/null)
tar -C "$stage" -czf "$ROOT/handout.tar.gz" "$name"
echo "wrote handout.tar.gz ($(du -h "$ROOT/handout.tar.gz" | cut -f1)): $name/, from commit $commit"
echo "  stripped:${stripped:- none}"
echo "  kept:    ${kept:- none}"
echo "  left out: docs/instructor.md and instructor-notes.md, tests/classroom/solutions/ and wrong/, and the measured answers (the instructor's key)"
