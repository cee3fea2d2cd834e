#!/usr/bin/env bash
# make exercise-NN: the student's starter of chapter NN, outside the lesson code.
#
#   make exercise-03            writes exercises/03/03_warp_specialized/ and builds it
#   make exercise-03 FRESH=1    starts again (the old copy is kept beside it)
#   make exercise-03 NOBUILD=1  writes it without building it
#
# exercises/NN/ mirrors the repository: NN_<name>/ is a copy of the chapter
# in which every region of the chapter's own exercises (tests/classroom/
# regions.awk; an earlier chapter's exercise reused here stays written) is
# replaced by a TODO and the starter's stub, and the other entries are links to the real
# common/, tests/ and chapters, so the copy builds with the same Makefile, the
# same main.c and the same verification, and links the parent chapter's real
# kernel as its baseline. A copy that exists already is the student's work:
# it is rebuilt, never overwritten.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
# shellcheck source=tests/lib.sh
. tests/lib.sh

n=${1:-}
ch=$(chapter_of "$n")
if [ -z "$n" ] || [ -z "$ch" ]; then
    echo "usage: make exercise-NN, NN one of: $(chapter_numbers)" >&2
    exit 2
fi
if [ -f HANDOUT ]; then
    echo "This is a handout: $ch/ is already the starter. Edit the regions marked"
    echo "'// ---- exercise $n.N' in $ch/, build with make chapter-$n, check with make check-$n."
    exec make --no-print-directory "chapter-$n"
fi

tree=exercises/$n
dir=$tree/$ch
if [ -d "$dir" ] && [ "${FRESH:-0}" = 1 ]; then
    old=$dir.old-$(date +%Y%m%d-%H%M%S)
    mv "$dir" "$old"
    echo "kept your previous copy as $old"
fi
if [ ! -d "$dir" ]; then
    mkdir -p "$tree"
    # links to everything else, so ../common, ../01_naive, ... resolve as in the lesson
    for e in common tests [0-9][0-9]_*; do
        [ "$e" = "$ch" ] || ln -sfn "../../$e" "$tree/$e"
    done
    mkdir "$dir"
    tar -C "$ch" --exclude=./build --exclude=./run -cf - . | tar -C "$dir" -xf -
    for f in $(region_files "$dir"); do
        awk -v mode=strip -v only="$n" -f common/regions.awk "$ch/$f" >"$dir/$f"
    done
    echo "wrote the starter of $ch: $dir/"
else
    echo "$dir/ exists (your work): rebuilding it as it is (FRESH=1 starts again)"
fi

echo "exercises (the regions marked '// ---- exercise $n.N'):"
(cd "$dir" && awk -v mode=list -f "$ROOT/common/regions.awk" \
    $(region_files .)) |
    awk -F'\t' '!seen[$3]++ { printf "  %s  %-70s %s:%s\n", $3, $4, $1, $2 }'
[ "${NOBUILD:-0}" = 1 ] || make --no-print-directory -C "$dir"
echo "build it:   make -C $dir    (any of the chapter's knobs, as in $ch)"
echo "run it:     $dir/run        (it fails verification, or hangs and the watchdog ends it, until done)"
echo "check it:   make check-$n"
