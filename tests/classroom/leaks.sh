#!/usr/bin/env bash
# tests/classroom/leaks.sh REPO HANDOUT: the answers of REPO's exercise
# regions found anywhere in the HANDOUT tree (make handout's copy), one
# "file:line: exercise: code" line each; exit 1 when there is any.
#
# An answer is a line of a region's body (regions.awk mode=answers), its
# comments and blanks removed; each text file of the handout is compared
# line by line the same way, so re-indented, re-spaced or re-commented
# copies are found. A starter's stub line (tagged "starter stub") is given
# to the student and is no leak. Not looked for: lines that say nothing on
# their own (a brace, `else`, `#pragma unroll`), and the lines in GENERIC,
# which the lessons use everywhere or which a region's hint spells out:
# where they go is the answer, and a copy of the code around them is what
# would show it (such a copy is a region of the same exercise, stripped
# with it). IGNORE lists single places (file:line without blanks) whose
# line reads like an answer but belongs to another technique.
set -euo pipefail
repo=$1 handout=$2
. "$repo/tests/lib.sh"
GENERIC=(
    '__syncthreads();' 'cluster.sync();' 'grid.sync();' 'cg::this_grid().sync();' # a barrier (01.2, 05.x, 06.1)
    'if(err!=cudaSuccess)returnerr;'                                              # an error check (04.3)
    'constinte=tid+l*BLOCKED_THREADS;' 'for(intl=0;l<A_LOADS;++l){' 'for(intl=0;l<B_LOADS;++l){'
    'constintr=e/(BK/4),c=(e%(BK/4))*4;' 'constintr=e/(BN/4),c=(e%(BN/4))*4;'      # 01.1's hint
    'constfloata[TM]={a_lo.x,a_lo.y,a_lo.z,a_lo.w,a_hi.x,a_hi.y,a_hi.z,a_hi.w};'
    'constfloatb[TN]={b_lo.x,b_lo.y,b_lo.z,b_lo.w,b_hi.x,b_hi.y,b_hi.z,b_hi.w};'
    'for(inti=0;i<TM;++i)'                                                         # 01.3's hint
    'fprintf(stderr,"07_tma_multicast:cannotdescribethematrixtoTMA:%s\n",why);'
    'returncudaErrorInvalidValue;'                                                 # 07.3's error path
)
IGNORE=(
    '06_clusters_dsmem/kernel.cu:pipe.producer_commit();' # a thread's own cp.async batch, not 03.2's hand-off,
    '06_clusters_dsmem/kernel_tc.cu:pipe.producer_commit();' # (the tensor-core kernel's too)
    '06_clusters_dsmem/README.md:pipe.producer_commit();' # and the page's listings of them
)
answers=$(mktemp)
trap 'rm -f "$answers" "$answers.hits"' EXIT
for d in "$repo"/[0-9][0-9]_*/; do
    files=$(region_files "$d" || true)
    [ -n "$files" ] || continue
    # shellcheck disable=SC2086
    (cd "$d" && awk -v mode=answers -f "$repo/common/regions.awk" $files)
done | awk -F'\t' -v generic="$(printf '%s\n' "${GENERIC[@]}")" '
    BEGIN { n = split(generic, g, "\n"); for (i = 1; i <= n; ++i) skip[g[i]] = 1 }
    length($2) > 8 && $2 !~ /^(#pragmaunroll|else|[{}();]+)$/ && !($2 in skip)' | sort -u >"$answers"
[ -s "$answers" ] || { echo "leaks: no answers found in $repo" >&2; exit 2; }
cd "$handout"
grep -rIl . --exclude-dir=.git --exclude-dir=build --exclude-dir=html . | sed 's#^\./##' | sort |
    while read -r f; do
        awk -F'\t' -v file="$f" -v ignore="$(printf '%s\n' "${IGNORE[@]}")" '
            BEGIN { n = split(ignore, g, "\n"); for (i = 1; i <= n; ++i) skip[g[i]] = 1 }
            NR == FNR { ids = ($2 in ans) ? ans[$2] "," $1 : $1; ans[$2] = ids; next }
            index($0, "starter stub: replace it") { next }
            { s = $0; gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", s); sub(/\/\/.*/, "", s); gsub(/[ \t]/, "", s) }
            (s in ans) && !((file ":" s) in skip) { printf "%s:%d: %s: %s\n", file, FNR, ans[s], $0; hits++ }
            END { exit hits > 0 }' "$answers" "$f" || true
    done >"$answers.hits"
cat "$answers.hits"
[ ! -s "$answers.hits" ]
