#!/usr/bin/env bash
# Run by `make docs` after Doxygen: point each chapter's macro names at that
# chapter's own definition.
#
# Every chapter defines its own BM, BN, BK, STAGES, CONSUMER_THREADS, ...
# Doxygen has one global namespace for macros, so it links a use of BM in
# chapter 03's code to the first BM it found (chapter 01's). A macro's
# anchor is the same in every file (it is derived from its name), so only
# the page a link names is wrong: this rewrites it, on the pages of a
# chapter's own files and on its README page, for the macros that chapter
# defines. Uses of a macro a chapter only includes (TM from 01_naive) keep
# Doxygen's link.
set -euo pipefail
cd "$(dirname "$0")/.."
html=docs/html
[ -d "$html" ] || { echo "$0: run Doxygen first ($html is missing)" >&2; exit 1; }

mangle() { echo "$1" | sed 's/_/__/g; s#/#_2#g; s/\./_8/g'; } # Doxygen's file page names

for ch in [0-9][0-9]_*/; do
    ch=${ch%/}
    # The chapter's pages: its files' pages (named with the folder when the
    # file name is not unique, else without) and its README page.
    pages=("$html/md_${ch}_README.html")
    declare -A page_of=()
    for f in "$ch"/*.cu "$ch"/*.cuh "$ch"/*.h "$ch"/*.c "$ch"/demos/*; do
        [ -f "$f" ] || continue
        p=$(mangle "$f")
        [ -f "$html/$p.html" ] || p=$(mangle "$(basename "$f")")
        [ -f "$html/$p.html" ] || continue
        page_of[$f]=$p
        pages+=("$html/$p.html")
        [ -f "$html/${p}_source.html" ] && pages+=("$html/${p}_source.html")
    done
    # NAME -> the page of the chapter's file that defines it (one per chapter)
    script=""
    for f in "${!page_of[@]}"; do
        for name in $(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f" |
            grep -v '^CH[0-9][0-9]_\|_H$\|_CUH$' | sort -u); do
            script+="s#href=\"[A-Za-z0-9_]*\\.html\\(\\#[a-f0-9]*\\)\"\\([^>]*\\)>$name<#href=\"${page_of[$f]}.html\\1\"\\2>$name<#g;"
        done
    done
    unset page_of
    [ -n "$script" ] || continue
    existing=()
    for p in "${pages[@]}"; do [ -f "$p" ] && existing+=("$p"); done
    sed -i "$script" "${existing[@]}"
done
