#!/usr/bin/env bash
# docs/gen_pages.py on a small CSV: it fills each kind of marker with the
# right figure, rewrites a stale one, and refuses markers that select no row,
# several rows, or a column that does not exist.
set -euo pipefail
cd "$(dirname "$0")/../.."
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cat >"$t/r.csv" <<'CSV'
chapter,kernel,m,knobs,ms_median,tflops,zero
01_naive,tiled,4096,TILE=32,15.22160,9.029,0
01_naive,blocked,4096,BK=8,4.00000,34.4,0
01_naive,blocked,8192,BK=8,30.00000,36.6,0
01_naive,cublas,4096,FP32 (no TF32),2.66011,51.667,0
CSV
cat >"$t/other.csv" <<'CSV'
chapter,kernel,m,knobs,ms_median,tflops
01_naive,blocked,4096,BK=8,5.00000,27.5
CSV
v() { printf '<!-- value: %s/r.csv %s -->%s<!-- end -->' "$t" "$1" "$2"; }
{
    echo "a $(v 'kernel=tiled m=4096 show=ms_median' 0) ms"
    echo "b $(v 'kernel=tiled m=4096 show=ms_median fmt=.2f' 0) ms"
    echo "c $(v 'kernel=tiled m=4096 vs=blocked show=speedup' 0)x"
    echo "d $(v 'kernel=blocked m=4096 vs=tiled show=less' 0)%"
    echo "e $(v 'kernel=tiled m=4096 vs=blocked show=more' 0)%"
    echo "f $(v "kernel=blocked m=4096 vs=cublas show=ratio" 0)"
    echo "g $(v "kernel=blocked has=BK=8 m=8192 vs=blocked vs.m=4096 show=ratio fmt=.1f" 0)"
    echo "h $(v "kernel=blocked m=4096 show=ms_median scale=1000 div=m fmt=.4f" 0) us"
    echo "i $(v "chapter=01_naive 'knobs=FP32 (no TF32)' show=tflops" 0)"
    echo "j $(v "kernel=blocked m=4096 vs=blocked vsfile=$t/other.csv show=speedup" 0)x"
} >"$t/page.md"
python3 docs/gen_pages.py "$t/page.md" | sed 's/<!-- value: [^>]*-->//; s/<!-- end -->//; s/&nbsp;/ /g; s/ *$//' >"$t/got"
cat >"$t/want" <<'TXT'
a 15.22160 ms
b 15.22 ms
c 0.26x
d 74%
e 281%
f 1.50
g 7.5
h 0.9766 us
i 51.667
j 1.25x
TXT
diff -u "$t/want" "$t/got"
# the space after an end marker becomes a no-break space (Doxygen drops a
# plain one after a comment); a line break stays as it is
python3 docs/gen_pages.py "$t/page.md" | grep -c '<!-- end -->&nbsp;' | grep -qx 3
# a filled page is a fixed point
python3 docs/gen_pages.py "$t/page.md" >"$t/once"
python3 docs/gen_pages.py "$t/once" | cmp -s - "$t/once"
# markers that must be refused (exit 1, the page's line named): among them an
# unbalanced quote and a division by zero, which must not end in a traceback
for bad in 'kernel=blocked show=ms_median' 'kernel=nosuch show=ms_median' 'kernel=tiled show=nosuch' \
    'kernel=tiled nosuchcol=1 show=ms_median' 'kernel=tiled show=speedup' 'kernel=tiled vs=blocked show=ms_median' \
    "kernel=tiled 'm=4096 show=ms_median" 'kernel=tiled m=4096 show=ms_median div=zero'; do
    echo "x $(v "$bad" 1)" >"$t/bad.md"
    if python3 docs/gen_pages.py "$t/bad.md" >/dev/null 2>"$t/err"; then
        echo "accepted a bad marker: $bad" >&2
        exit 1
    fi
    grep -q 'bad.md:1: value marker' "$t/err" || { echo "no line named for: $bad" >&2; cat "$t/err" >&2; exit 1; }
done
# an opening marker without its end on the same line
printf 'x <!-- value: %s/r.csv kernel=tiled show=ms_median -->1\n<!-- end -->\n' "$t" >"$t/open.md"
! python3 docs/gen_pages.py "$t/open.md" >/dev/null 2>&1
# listings: the lines between a file's two // [tag] lines, fenced, without
# the markers of listings nested inside; a stale body is rewritten; a tag
# that is not there twice is refused
printf 'int a;\n// [two]\nint b;\n  // [in]\n  int c;\n  // [in]\n// [two]\n// [one]\n' >"$t/src.cu"
printf 'p\n<!-- listing: %s/src.cu two -->\nold\n<!-- end listing -->\nq\n' "$t" >"$t/l.md"
python3 docs/gen_pages.py "$t/l.md" >"$t/l.out"
printf 'p\n<!-- listing: %s/src.cu two -->\n```cpp\nint b;\n  int c;\n```\n<!-- end listing -->\nq\n' "$t" | diff -u - "$t/l.out"
printf '<!-- listing: %s/src.cu one -->\n<!-- end listing -->\n' "$t" >"$t/l1.md"
! python3 docs/gen_pages.py "$t/l1.md" >/dev/null 2>&1
echo "gen_pages: all cases as expected"
