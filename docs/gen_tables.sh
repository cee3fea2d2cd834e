#!/usr/bin/env bash
# Regenerate the measured-results tables in the Markdown pages from the
# committed CSVs, so no figure in the docs is typed by hand.
#
# A page asks for a table with a pair of markers:
#   <!-- results-table: docs/results/h100.csv chapter=01_naive m=4096 -->
#   (generated lines)
#   <!-- end results-table -->
# Filters (all optional): chapter=, kernel=, m=. Rows keep the CSV's order;
# "speedup" is over the row above when both have the same size; speedup=no
# leaves the column out (for sweeps, which are not a progression).
# unique=kernel keeps only the first row of each kernel name (its own
# chapter's), and exclude=NAME[,NAME...] drops kernels: together they make the
# one-row-per-step overview.
#
# Demonstrations that are not a GEMM (chapters 04 and 05) use demo-table:
#   <!-- demo-table: docs/results/h100.csv chapter=05_cooperative_grid prefix=two_stage_ m=1000 n=262144 has=grid=1056 per=iteration -->
# prefix= keeps kernels whose name starts with it, has= rows whose knobs
# contain the text, m= and n= the counts; "per" names what m counts, and the
# table shows the median time divided by m, and the speedup over the first row
# (n is the problem size: elements, or 0 where there is none).
#
# Profiler metrics (tests/profile.sh) are asked for the same way, one row per
# metric and one column per kernel:
#   <!-- metrics-table: docs/results/h100-ncu.csv chapter=01_naive -->
#   <!-- end metrics-table -->
# size= names the problem size the profile ran at, for the caption
# (default: "the default size").
#
# The hardware each chapter needs comes from the chapter Makefiles (MIN_CC,
# MIN_CC_FOR), so the README, the main page and the builds agree:
#   <!-- hardware-table -->
#   <!-- end hardware-table -->
#
#   bash docs/gen_tables.sh           rewrite the pages in place
#   bash docs/gen_tables.sh --check   exit 1 if any page differs from its CSV
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
[ "${1:-}" = "--check" ] && check=1

# One row per chapter: its title (the Makefile's first line), MIN_CC, MIN_CC_FOR.
hardware=$(mktemp)
trap 'rm -f "$hardware" "$hardware.base"' EXIT
{
    echo "| ch. | chapter | needs compute capability | for | e.g. |"
    echo "|---|---|---|---|---|"
    for mk in [0-9][0-9]_*/Makefile; do
        ch=${mk%/Makefile}
        title=$(sed -n '1s/^# Chapter [0-9]*: *//p' "$mk" | sed 's/\.$//')
        title=${title^}
        cc=$(sed -n 's/^MIN_CC *:= *//p' "$mk")
        why=$(sed -n 's/^MIN_CC_FOR *:= *//p' "$mk")
        case $cc in
        75) eg="Turing (T4, RTX 20) and newer" ;;
        80) eg="Ampere (A100, RTX 30), Ada (L4, RTX 40), Hopper" ;;
        90) eg="Hopper (H100, H200)" ;;
        *) eg="" ;;
        esac
        echo "| ${ch%%_*} | [$title](../$ch/README.md) | ${cc%?}.${cc#?} (\`sm_$cc\`) | $why | $eg |"
    done
} >"$hardware.base"

render() { # page -> stdout
    # the hardware table links chapters relative to the page
    if [ "$1" = README.md ]; then sed 's#](\.\./#](#' "$hardware.base" >"$hardware"; else cp "$hardware.base" "$hardware"; fi
    awk -v hardware="$hardware" '
    function table(spec,    n, a, i, kv, file, fchapter, fkernel, fm, fsp, funiq, fexcl, seen, line, f, rows, prev, prevsize, sp, caption, nf) {
        n = split(spec, a, " ")
        file = a[1]; fchapter = ""; fkernel = ""; fm = ""; fsp = 1; funiq = 0; fexcl = ""
        split("", seen)
        for (i = 2; i <= n; i++) {
            split(a[i], kv, "=")
            if (kv[1] == "chapter") fchapter = kv[2]
            else if (kv[1] == "kernel") fkernel = kv[2]
            else if (kv[1] == "m") fm = kv[2]
            else if (kv[1] == "speedup") fsp = (kv[2] != "no")
            else if (kv[1] == "unique") funiq = (kv[2] == "kernel")
            else if (kv[1] == "exclude") fexcl = kv[2]
        }
        if ((getline line < file) <= 0) {
            print "_No measurements yet: run `make bench` on a GPU to create `" file "`._"
            return
        }
        rows = 0; prev = 0
        while ((getline line < file) > 0) {
            if (index(line, "\"")) { print "gen_tables: quoted CSV field in " file > "/dev/stderr"; exit 2 }
            nf = split(line, f, ",")
            if (nf < 17) continue
            if (fchapter != "" && f[6] != fchapter) continue
            if (fkernel != "" && f[7] != fkernel) continue
            if (fm != "" && f[8] != fm) continue
            if (fexcl != "" && index("," fexcl ",", "," f[7] ",") > 0) continue
            if (funiq && (f[7] in seen)) continue
            seen[f[7]] = 1
            if (rows == 0) {
                caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] ", commit " f[4] ", " f[5] "; from `" file "` (`make bench`)."
                if (funiq) caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] "; each row from its own chapter'"'"'s run (commit and date in `" file "`, `make bench`); % of cuBLAS is against cuBLAS in that same run."
                print "| kernel | knobs | M x N x K | median ms (min - max) | TFLOP/s | % of cuBLAS |" (fsp ? " speedup vs row above |" : "") " verified |"
                print "|---|---|---|---|---|---|" (fsp ? "---|" : "") "---|"
            }
            sp = (rows == 0 || f[12] + 0 == 0 || prevsize != f[8] "x" f[9] "x" f[10]) ? "-" : sprintf("%.2fx", prev / f[12])
            printf "| %s | `%s` | %sx%sx%s | %.3f (%.3f - %.3f) | %s | %s |%s %s |\n", \
                f[7], f[11], f[8], f[9], f[10], f[12], f[13], f[14], (f[15] == "NA" ? "-" : sprintf("%.1f", f[15])), \
                (f[16] == "NA" ? "-" : sprintf("%.1f%%", f[16])), (fsp ? " " sp " |" : ""), f[17]
            prev = f[12]; prevsize = f[8] "x" f[9] "x" f[10]; rows++
        }
        close(file)
        if (rows == 0) print "_No rows in `" file "` match `" spec "`._"
        else { print ""; print "_" caption "_" }
    }
    function demo(spec,    n, a, i, key, v, file, fchapter, fprefix, fm, fn, fhas, per, line, f, nf, rows, first, caption) {
        n = split(spec, a, " ")
        file = a[1]; fchapter = ""; fprefix = ""; fm = ""; fn = ""; fhas = ""; per = "item"
        for (i = 2; i <= n; i++) {
            key = substr(a[i], 1, index(a[i], "=") - 1); v = substr(a[i], index(a[i], "=") + 1)
            if (key == "chapter") fchapter = v
            else if (key == "prefix") fprefix = v
            else if (key == "m") fm = v
            else if (key == "n") fn = v
            else if (key == "has") fhas = v
            else if (key == "per") per = v
        }
        if ((getline line < file) <= 0) {
            print "_No measurements yet: run `make bench` on a GPU to create `" file "`._"
            return
        }
        rows = 0
        while ((getline line < file) > 0) {
            nf = split(line, f, ",")
            if (nf < 17) continue
            if (fchapter != "" && f[6] != fchapter) continue
            if (fprefix != "" && index(f[7], fprefix) != 1) continue
            if (fm != "" && f[8] != fm) continue
            if (fn != "" && f[9] != fn) continue
            if (fhas != "" && index(f[11], fhas) == 0) continue
            if (rows == 0) {
                caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] ", commit " f[4] ", " f[5] "; from `" file "` (`make bench`)."
                print "| way | settings | " per ((per ~ /(s|sh|ch|x)$/) ? "es" : "s") " (count) | n | median ms (min - max) | us per " per " | speedup vs first row | verified |"
                print "|---|---|---|---|---|---|---|---|"
                first = f[12]
            }
            printf "| %s | `%s` | %s | %s | %.4f (%.4f - %.4f) | %.3f | %s | %s |\n", f[7], f[11], f[8], f[9], f[12], f[13], f[14], \
                1000.0 * f[12] / f[8], (rows == 0 ? "-" : sprintf("%.2fx", first / f[12])), f[17]
            rows++
        }
        close(file)
        if (rows == 0) print "_No rows in `" file "` match `" spec "`._"
        else { print ""; print "_" caption "_" }
    }
    function metrics(spec,    n, a, i, kv, file, fchapter, fsize, line, f, nk, nm, kname, mname, unit, val, k, m, row, gpu, commit) {
        n = split(spec, a, " ")
        file = a[1]; fchapter = ""
        fsize = "the default size"
        for (i = 2; i <= n; i++) {
            split(a[i], kv, "=")
            if (kv[1] == "chapter") fchapter = kv[2]
            else if (kv[1] == "size") fsize = kv[2]
        }
        if ((getline line < file) <= 0) {
            print "_No profile yet: run `tests/profile.sh` on a GPU to create `" file "`._"
            return
        }
        nk = 0; nm = 0
        while ((getline line < file) > 0) {
            if (split(line, f, ",") < 7 || (fchapter != "" && f[3] != fchapter)) continue
            gpu = f[1]; commit = f[2]
            if (!(f[4] in kseen)) { kseen[f[4]] = 1; kname[++nk] = f[4] }
            if (!(f[5] in mseen)) { mseen[f[5]] = 1; mname[++nm] = f[5]; unit[f[5]] = f[6] }
            val[f[4], f[5]] = f[7]
        }
        close(file)
        if (nk == 0) { print "_No rows in `" file "` match `" spec "`._"; return }
        row = "| metric | unit |"
        for (k = 1; k <= nk; k++) row = row " " kname[k] " |"
        print row
        row = "|---|---|"
        for (k = 1; k <= nk; k++) row = row "---|"
        print row
        for (m = 1; m <= nm; m++) {
            row = "| `" mname[m] "` | " unit[mname[m]] " |"
            for (k = 1; k <= nk; k++) row = row " " ((kname[k], mname[m]) in val ? val[kname[k], mname[m]] : "-") " |"
            print row
        }
        print ""
        print "_Nsight Compute on " gpu ", commit " commit ", one launch per kernel at " fsize "; from `" file "` (`tests/profile.sh`)._"
        split("", kseen); split("", mseen); split("", val)
    }
    /<!-- hardware-table -->/ {
        print
        while ((getline line < hardware) > 0) print line
        close(hardware)
        skipping = 1
        next
    }
    /<!-- (results|metrics|demo)-table: .* -->/ {
        print
        spec = $0
        sub(/.*-table: */, "", spec)
        sub(/ *-->.*/, "", spec)
        if ($0 ~ /metrics-table/) metrics(spec); else if ($0 ~ /demo-table/) demo(spec); else table(spec)
        skipping = 1
        next
    }
    /<!-- end (results|metrics|demo|hardware)-table -->/ { skipping = 0; print; next }
    !skipping { print }
    ' "$1"
}

status=0
for page in README.md docs/*.md [0-9][0-9]_*/README.md; do
    [ -f "$page" ] || continue
    grep -qE '<!-- ((results|metrics|demo)-table:|hardware-table)' "$page" || continue
    out=$(mktemp)
    render "$page" >"$out"
    if [ $check -eq 1 ]; then
        if ! cmp -s "$out" "$page"; then
            echo "$page: its results tables differ from the CSVs (run make tables):"
            diff "$page" "$out" | head -n 20 || true
            status=1
        fi
        rm -f "$out"
    else
        if ! cmp -s "$out" "$page"; then cat "$out" >"$page" && echo "updated $page"; fi
        rm -f "$out"
    fi
done
exit $status
