#!/usr/bin/env bash
# tests/classroom/sample_class.sh NN DIR: a sample class of chapter NN for
# make grade-NN, in DIR/<student>/NN_<name>/, as make exercise-NN lays it out:
#   lesson   the lesson code (every exercise written)
#   starter  the untouched starter
#   wrong    the lesson with the first wrong solution of the chapter in
#            tests/classroom/wrong/ applied (a mistake the grade must catch)
#   cheat    the starter with a main.c that prints PASSED and exits 0 (the
#            grade must use the repository's main.c, not this one)
# make test grades it without a GPU; docs/results/<gpu>-grades-NN.csv is the
# gradebook of the same class graded on a GPU.
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
n=$1 out=$2
ch=$(chapter_of "$n")
[ -n "$ch" ] || { echo "sample_class: no chapter $n" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out"
copy() { mkdir -p "$out/$1/$ch" && tar -C "$ch" --exclude=./build --exclude=./run -cf - . | tar -C "$out/$1/$ch" -xf -; }
strip() { # student: the chapter's own regions to their starter
    local f
    for f in $(region_files "$ch"); do
        awk -v mode=strip -v only="$n" -f tests/classroom/regions.awk "$ch/$f" >"$out/$1/$ch/$f"
    done
}
copy lesson
copy starter && strip starter
copy wrong
patch=$(ls tests/classroom/wrong/"$n".*.patch 2>/dev/null | head -n1 || true)
[ -n "$patch" ] || { echo "sample_class: no wrong solution of chapter $n in tests/classroom/wrong/" >&2; exit 2; }
# the patches are written against the repository root: NN_<name>/file
patch -d "$out/wrong" -p1 --quiet <"$patch"
echo "${patch#tests/classroom/wrong/}" >"$out/wrong/WRONG"
copy cheat && strip cheat
cat >"$out/cheat/$ch/main.c" <<'EOF'
/* A submission that edits main.c so that every run "passes". */
#include <stdio.h>
int main(void)
{
    puts("PASSED");
    return 0;
}
EOF
echo "sample class of $ch in $out: lesson starter wrong ($(cat "$out/wrong/WRONG")) cheat"
