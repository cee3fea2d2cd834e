#!/usr/bin/env bash
# Regenerate the measured-results tables in the Markdown pages from the
# committed CSVs, so no figure in the docs is typed by hand. Captions are
# <em>...</em>: Doxygen leaves _..._ literal when it ends in ")." as ours do.
#
# A page asks for a table with a pair of markers:
#   <!-- results-table: docs/results/h100.csv chapter=01_naive m=4096 -->
#   (generated lines)
#   <!-- end results-table -->
# Filters (all optional): chapter=, kernel=, m=, has= (rows whose knobs
# contain the text, or one of several separated by '|': the solution patch
# that built them, in the answers file), lacks= (rows whose knobs do not
# contain the text, or any of several separated by '|'). Rows keep the CSV's order;
# "speedup" is over the first row (the parent chapter's kernel, in a
# chapter's own table) when both have the same size; speedup=no
# leaves the column out (for sweeps, which are not a progression), and
# speedup=size takes it over the first row of each size instead (a table
# of several shapes, each beginning with the parent's kernel).
# line=tc keeps the tensor-core line's rows (kernels named *_tc, and
# cublas_bf16), and without it a table keeps the FP32 line's, the others.
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
# (default: "the default size"); only=METRIC[,METRIC...] keeps those rows;
# kernels=LABEL[,LABEL...] keeps those columns, label=TEXT the columns
# whose label contains the text; without kernels=, line=tc keeps the
# tensor-core line's columns and no line= the FP32 line's, as in results-table.
#
# The hardware each chapter needs comes from the chapter Makefiles (MIN_CC,
# MIN_CC_FOR), so the README, the main page and the builds agree:
#   <!-- hardware-table -->
#   <!-- end hardware-table -->
# What runs where: per chapter and compute capability, whether it runs
# here (9.0, the H100), is built by make test-gpu for that ARCH (ARCH_BUILDS in
# tests/lib.sh) or neither, and the settings that change there (KNOBS_<class>,
# TOO_BIG_<class> in its Makefile, for the shared memory common/arch.mk
# gives that ARCH):
#   <!-- runs-where-table -->
#   <!-- end runs-where-table -->
# The cost of tracing (make traces) is asked for with
#   <!-- trace-cost-table: docs/results/h100-trace.csv -->
#   <!-- end trace-cost-table -->
# A chapter page's code exercises, from the exercise regions marked in its
# sources (tests/classroom/regions.awk), so the page lists what make
# exercise-NN strips:
#   <!-- exercise-table -->
#   <!-- end exercise-table -->
# A chapter page's links to the previous and next chapters:
#   <!-- chapter-nav -->
#   <!-- end chapter-nav -->
# and each chapter's parent and the size of its kernel's diff against the
# parent's (PARENT; the diffs are written to docs/diffs/):
#   <!-- lineage-table -->
#   <!-- end lineage-table -->
#
# A figure quoted in a sentence is filled the same way, inline, by
# docs/fill_values.py (its header gives the syntax):
#   ... <!-- value: docs/results/h100.csv chapter=01_naive kernel=tiled m=4096 show=ms_median fmt=.2f -->15.22<!-- end --> ms ...
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

# What runs where (see the header): one row per chapter, one column per
# group of compute capabilities that share their shared memory per block.
runs_where=$(mktemp)
{
    . tests/lib.sh
    groups=("7.5:sm_75:T4, RTX 20" "8.0, 8.7:sm_80 sm_87:A100, Jetson Orin" "8.6, 8.9:sm_86 sm_89:RTX 30, RTX 40, A10, L4"
            "9.0:sm_90a:H100, H200" "10.0:sm_100a:B200" "12.0:sm_120a:RTX 50")
    printf '| ch. |'
    for g in "${groups[@]}"; do printf ' %s (%s) |' "${g%%:*}" "${g##*:}"; done
    printf '\n|---|'
    for g in "${groups[@]}"; do printf -- '---|'; done
    echo
    for mk in [0-9][0-9]_*/Makefile; do
        ch=${mk%/Makefile}
        min=$(sed -n 's/^MIN_CC *:= *//p' "$mk")
        base=" $(make -s --no-print-directory -C "$ch" ARCH=sm_90a print-KNOB_DEFS) "
        printf '| [%s](../%s/README.md) |' "${ch%%_*}" "$ch"
        for g in "${groups[@]}"; do
            arches=${g#*:}
            arches=${arches%:*}
            a=${arches%% *}
            if [ "$(echo "$a" | tr -cd 0-9)" -lt "$min" ]; then printf ' - |'; continue; fi
            if [ "$a" = sm_90a ]; then
                cell="**runs** (H100$(grep -q ",$ch," docs/results/h200.csv 2>/dev/null && echo ", H200" || true))"
            else
                cell="not built here"
                for x in $arches; do
                    case " ${ARCH_BUILDS[*]} " in *" $ch:$x "*) cell="built ($x), not run" ;; esac
                done
            fi
            knobs=""
            for d in $(make -s --no-print-directory -C "$ch" ARCH="$a" print-KNOB_DEFS); do
                # the tensor-core line's knobs (TC_*) matter where it is built: sm_90a alone
                case $d in -DTC_*) [ "$a" = sm_90a ] || continue ;; esac
                case $base in *" $d "*) ;; *) knobs="$knobs ${d#-D}" ;; esac
            done
            big=$(make -s --no-print-directory -C "$ch" ARCH="$a" print-TOO_BIG)
            [ -z "$knobs" ] || cell="$cell; \`${knobs# }\`"
            [ -z "$big" ] || cell="$cell; without $(echo "$big" | sed 's/\([a-z_0-9]*\)/`\1`/g; s/` `/`, `/g')"
            printf ' %s |' "$cell"
        done
        echo
    done
} >"$runs_where"

# What each chapter's lesson kernel adds to its parent's (PARENT in its
# Makefile): a table row per chapter, and the diff itself as a page,
# docs/diffs/diff-NN.md, for the table to link to (make diff-NN prints it too).
lineage=$(mktemp)
mkdir -p "$lineage.d"
trap 'rm -rf "$hardware" "$hardware.base" "$lineage" "$lineage.d" "$runs_where" "$runs_where.page"' EXIT
{
    echo "| ch. | chapter | builds on | its kernel.cu against the parent's |"
    echo "|---|---|---|---|"
    for mk in [0-9][0-9]_*/Makefile; do
        ch=${mk%/Makefile} n=${ch%%_*}
        title=$(sed -n '1s/^# Chapter [0-9]*: *//p' "$mk" | sed 's/\.$//')
        parent=$(sed -n 's/^PARENT *:= *//p' "$mk")
        if [ -z "$parent" ]; then
            echo "| $n | [${title^}](../$ch/README.md) | - | a starting point |"
            continue
        fi
        # as make diff-NN shows it: without the classroom's exercise markers
        d=$(diff -u --label "$parent/kernel.cu" --label "$ch/kernel.cu" \
            <(awk -v mode=clean -f tests/classroom/regions.awk "$parent/kernel.cu") \
            <(awk -v mode=clean -f tests/classroom/regions.awk "$ch/kernel.cu") || true) # diff exits 1: they differ
        add=$(echo "$d" | grep -c '^+[^+]' || true)
        del=$(echo "$d" | grep -c '^-[^-]' || true)
        echo "| $n | [${title^}](../$ch/README.md) | ${parent%%_*} | [+$add -$del lines](diffs/diff-$n.md) (\`make diff-$n\`) |"
        {
            echo "# Chapter $n against chapter ${parent%%_*} {#diff$n}"
            echo
            echo "What \`$ch/kernel.cu\` adds to \`$parent/kernel.cu\`: $add lines added, $del removed."
            echo "\`make diff-$n\` prints the same diff. Generated by \`make tables\`."
            echo
            echo '```'
            echo "$d"
            echo '```'
        } >"$lineage.d/diff-$n.md"
        # the tensor-core line's step, where the chapter and its parent have one (make diff-tc;
        # TC_PARENT where the tensor-core kernel's parent is another chapter)
        tc_parent=$(sed -n 's/^TC_PARENT *:= *//p' "$mk")
        parent=${tc_parent:-$parent}
        [ -f "$ch/kernel_tc.cu" ] && [ -f "$parent/kernel_tc.cu" ] || continue
        d=$(diff -u --label "$parent/kernel_tc.cu" --label "$ch/kernel_tc.cu" \
            <(awk -v mode=clean -f tests/classroom/regions.awk "$parent/kernel_tc.cu") \
            <(awk -v mode=clean -f tests/classroom/regions.awk "$ch/kernel_tc.cu") || true)
        add=$(echo "$d" | grep -c '^+[^+]' || true)
        del=$(echo "$d" | grep -c '^-[^-]' || true)
        {
            echo "# Chapter $n against chapter ${parent%%_*}: the tensor-core kernels {#diff${n}tc}"
            echo
            echo "What \`$ch/kernel_tc.cu\` adds to \`$parent/kernel_tc.cu\`: $add lines added, $del removed."
            echo "\`make -C $ch diff-tc\` prints the same diff. Generated by \`make tables\`."
            echo
            echo '```'
            echo "$d"
            echo '```'
        } >"$lineage.d/diff-$n-tc.md"
    done
} >"$lineage"

# Previous / next links of a chapter page (the chapters in folder order).
chapter_nav() { # page
    local ch=${1%/README.md} prev="" next="" found=0 d t
    for d in [0-9][0-9]_*/; do
        d=${d%/}
        if [ "$found" = 1 ] && [ -z "$next" ]; then next=$d; fi
        [ "$d" = "$ch" ] && found=1
        [ "$found" = 0 ] && prev=$d
    done
    title() { t=$(sed -n '1s/^# //p' "$1/README.md"); echo "$t"; }
    printf "%s" "${prev:+[&larr; $(title "$prev")](../$prev/README.md) &middot; }[Contents](../docs/mainpage.md)${next:+ &middot; [$(title "$next") &rarr;](../$next/README.md)}"
}

# The exercise regions of a chapter, as a table (one row per exercise).
exercise_table() { # chapter
    local files
    files=$(. tests/lib.sh && region_files "$1")
    [ -n "$files" ] || { echo "<em>No exercise regions in \`$1\`.</em>"; return; }
    echo "| exercise | what to write | where | hint |"
    echo "|---|---|---|---|"
    # shellcheck disable=SC2086
    (cd "$1" && awk -v mode=list -f ../tests/classroom/regions.awk $files) | sort -t$'\t' -k3,3 -s |
        awk -F'\t' -v ch="$1" '
            !($3 in title) { order[++n] = $3; title[$3] = $4; hint[$3] = $6; where[$3] = "`" $1 "`" ; next }
            index(where[$3], "`" $1 "`") == 0 { where[$3] = where[$3] ", `" $1 "`" }
            END {
                for (i = 1; i <= n; ++i) {
                    id = order[i]
                    own = substr(id, 1, 2) == substr(ch, 1, 2)
                    printf "| %s | %s%s | %s | %s |\n", id, title[id],
                        own ? "" : " (chapter " substr(id, 1, 2) "'"'"'s exercise, in this chapter'"'"'s copy of that code: stripped with it in a handout)",
                        where[id], hint[id]
                }
            }'
}

render() { # page -> stdout
    # the hardware table links chapters relative to the page
    if [ "$1" = README.md ]; then sed 's#](\.\./#](#' "$hardware.base" >"$hardware"; else cp "$hardware.base" "$hardware"; fi
    if [ "$1" = README.md ]; then sed 's#](\.\./#](#' "$runs_where" >"$runs_where.page"; else cp "$runs_where" "$runs_where.page"; fi
    local nav="" exercises=""
    case $1 in [0-9][0-9]_*/README.md)
        nav=$(chapter_nav "$1")
        exercises=$(exercise_table "${1%/README.md}")
        ;;
    esac
    awk -v hardware="$hardware" -v runs_where="$runs_where.page" -v lineage="$lineage" -v nav="$nav" -v exercises="$exercises" '
    function table(spec,    n, a, i, kv, file, fchapter, fkernel, fm, fhas, fsp, funiq, fexcl, fpersize, flacks, ftc, alts, nalt, hit, j, base, size, seen, line, f, rows, first, firstsize, sp, caption, nf, cseen, cl, nc) {
        n = split(spec, a, " ")
        file = a[1]; fchapter = ""; fkernel = ""; fm = ""; fhas = ""; flacks = ""; fsp = 1; fpersize = 0; funiq = 0; fexcl = ""; ftc = 0
        split("", seen); split("", base)
        for (i = 2; i <= n; i++) {
            split(a[i], kv, "=")
            if (kv[1] == "chapter") fchapter = kv[2]
            else if (kv[1] == "kernel") fkernel = kv[2]
            else if (kv[1] == "m") fm = kv[2]
            else if (kv[1] == "has") fhas = substr(a[i], 5)
            else if (kv[1] == "lacks") flacks = substr(a[i], 7)
            else if (kv[1] == "speedup") { fsp = (kv[2] != "no"); fpersize = (kv[2] == "size") }
            else if (kv[1] == "unique") funiq = (kv[2] == "kernel")
            else if (kv[1] == "exclude") fexcl = kv[2]
            else if (kv[1] == "line") ftc = (kv[2] == "tc")
        }
        if ((getline line < file) <= 0) {
            print "<em>No measurements yet: run `make bench` on a GPU to create `" file "`.</em>"
            return
        }
        rows = 0
        while ((getline line < file) > 0) {
            if (index(line, "\"")) { print "gen_tables: quoted CSV field in " file > "/dev/stderr"; exit 2 }
            nf = split(line, f, ",")
            if (nf < 17) continue
            if (fchapter != "" && f[6] != fchapter) continue
            if (fkernel != "" && f[7] != fkernel) continue
            if (fm != "" && f[8] != fm) continue
            if (fhas != "") {
                nalt = split(fhas, alts, "|"); hit = 0
                for (j = 1; j <= nalt; j++) if (index(f[11], alts[j]) > 0) hit = 1
                if (!hit) continue
            }
            if (flacks != "") {
                nalt = split(flacks, alts, "|"); hit = 0
                for (j = 1; j <= nalt; j++) if (index(f[11], alts[j]) > 0) hit = 1
                if (hit) continue
            }
            if (fexcl != "" && index("," fexcl ",", "," f[7] ",") > 0) continue
            if ((f[7] ~ /_tc$/ || f[7] == "cublas_bf16") != ftc) continue
            if (funiq && (f[7] in seen)) continue
            seen[f[7]] = 1
            if (!(f[4] in cseen)) { cseen[f[4]] = 1; cl = cl (cl == "" ? "" : ", ") f[4]; nc++ }
            if (rows == 0) {
                caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] ", commit " f[4] ", " f[5] "; from `" file "` (`" made_by(file) "`)."
                if (funiq) caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] "; each row from its own chapter'"'"'s run (commit and date in `" file "`, `make bench`); % of cuBLAS is against cuBLAS in that same run."
                print "| kernel | knobs | M x N x K | median ms (min - max) | TFLOP/s | % of cuBLAS |" (fsp ? " speedup vs " f[7] " |" : "") " verified |"
                first = f[12]; firstsize = f[8] "x" f[9] "x" f[10]
                print "|---|---|---|---|---|---|" (fsp ? "---|" : "") "---|"
            }
            size = f[8] "x" f[9] "x" f[10]
            if (fpersize)
                sp = (!(size in base) || f[12] + 0 == 0) ? "-" : sprintf("%.2fx", base[size] / f[12])
            else
                sp = (rows == 0 || f[12] + 0 == 0 || firstsize != size) ? "-" : sprintf("%.2fx", first / f[12])
            if (!(size in base)) base[size] = f[12]
            printf "| %s | `%s` | %sx%sx%s | %.3f (%.3f - %.3f) | %s | %s |%s %s |\n", \
                f[7], f[11], f[8], f[9], f[10], f[12], f[13], f[14], (f[15] == "NA" ? "-" : sprintf("%.1f", f[15])), \
                (f[16] == "NA" ? "-" : sprintf("%.1f%%", f[16])), (fsp ? " " sp " |" : ""), f[17]
            rows++
        }
        close(file)
        if (rows == 0) print "<em>No rows in `" file "` match `" spec "`.</em>"
        else { print ""; print "<em>" several(caption, nc, cl, file) "</em>" }
    }
    # A caption names one commit and date (those of the first row); where the
    # rows come from several commits, it names them all and points to the file.
    function several(caption, nc, cl, file) {
        if (nc > 1) sub(/, commit [^;]*;/, ", commits " cl " (each row'"'"'s commit and date in `" file "`);", caption)
        return caption
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
            print "<em>No measurements yet: run `make bench` on a GPU to create `" file "`.</em>"
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
                caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] ", commit " f[4] ", " f[5] "; from `" file "` (`" made_by(file) "`)."
                print "| way | settings | " per ((per ~ /(s|sh|ch|x)$/) ? "es" : "s") " (count) | n | median ms (min - max) | us per " per " | speedup vs first row | verified |"
                print "|---|---|---|---|---|---|---|---|"
                first = f[12]
            }
            printf "| %s | `%s` | %s | %s | %.4f (%.4f - %.4f) | %.3f | %s | %s |\n", f[7], f[11], f[8], f[9], f[12], f[13], f[14], \
                1000.0 * f[12] / f[8], (rows == 0 ? "-" : sprintf("%.2fx", first / f[12])), f[17]
            rows++
        }
        close(file)
        if (rows == 0) print "<em>No rows in `" file "` match `" spec "`.</em>"
        else { print ""; print "<em>" caption "</em>" }
    }
    # The script that writes a results file, for the captions.
    function made_by(file) {
        if (file ~ /-answers/) return "tests/classroom/answers.sh"
        if (file ~ /-warps/) return "tests/warps_sweep.sh"
        if (file ~ /-storer/) return "tests/storer_sweep.sh"
        if (file ~ /-tc-shapes/) return "tests/tc_shapes.sh"
        if (file ~ /-shapes/) return "tests/shapes_sweep.sh"
        return "make bench"
    }
    # A metric'"'"'s row label, in words, with its unit.
    function metric_label(m, u,    s, l) {
        if (m == "kernel") return "kernel that ran"
        l["gpu__time_duration.sum"] = "duration"
        l["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = "SM throughput"
        l["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active"] = "FMA pipe busy"
        l["sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"] = "tensor pipe busy"
        l["smsp__issue_active.avg.pct_of_peak_sustained_active"] = "issue slots used"
        l["smsp__inst_executed.sum"] = "warp instructions"
        l["sm__warps_active.avg.pct_of_peak_sustained_active"] = "warps resident"
        l["launch__registers_per_thread"] = "registers"
        l["smsp__average_warp_latency_per_inst_issued.ratio"] = "cycles between issues, per warp"
        l["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] = "shared-store bank conflicts"
        l["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] = "shared-load bank conflicts"
        l["lts__t_sectors_op_read.sum"] = "L2 sectors read"
        l["lts__t_sectors_srcunit_tex_op_read.sum"] = "L2 sectors read by SMs"
        l["l1tex__m_xbar2l1tex_read_bytes.sum"] = "bytes from L2 into SMs"
        l["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] = "FFMAs (per thread)"
        l["sm__sass_inst_executed_op_shared_ld.sum"] = "shared-memory load instructions"
        l["lts__t_bytes.sum"] = "L2 bytes"
        l["lts__t_sector_hit_rate.pct"] = "L2 hit rate"
        l["dram__bytes_read.sum"] = "DRAM bytes read"
        l["sass__compute_loop_instructions"] = "compute loop: instructions per K step (one warp)"
        l["sass__compute_loop_integer_instructions"] = "compute loop: of which integer arithmetic"
        l["sass__compute_loop_ffma"] = "compute loop: FFMAs"
        l["sass__compute_loop_lds"] = "compute loop: shared-memory loads"
        l["sass__compute_loop_ffma_moved"] = "compute loop: FFMAs whose sum goes to another register"
        l["sass__compute_loop_lds_to_use_median"] = "compute loop: instructions from a load to its first use (median)"
        l["sass__compute_loop_samples_selected"] = "compute loop samples: issuing"
        l["sass__compute_loop_samples_not_selected"] = "compute loop samples: ready, another warp issued"
        l["sass__compute_loop_samples_short_sb"] = "compute loop samples: waiting for shared memory (short scoreboard)"
        l["sass__compute_loop_samples_no_inst"] = "compute loop samples: waiting for an instruction fetch"
        l["sass__compute_loop_samples_dispatch"] = "compute loop samples: dispatch stall"
        l["sass__compute_loop_samples_long_sb"] = "compute loop samples: waiting for a barrier poll or global memory (long scoreboard)"
        l["sass__compute_loop_samples_wait"] = "compute loop samples: fixed-latency wait"
        l["sass__copy_loop_instructions"] = "copy loop: instructions per K step (one warp)"
        l["sass__copy_loop_integer_instructions"] = "copy loop: of which integer arithmetic"
        if (m in l) s = l[m]
        else if (m ~ /^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$/) {
            s = m; sub(/^smsp__average_warps_issue_stalled_/, "", s); sub(/_per_issue_active\.ratio$/, "", s)
            gsub(/_/, " ", s); s = "stalled: " s " (warps per issue)"
            return s
        } else s = m
        if (u == "%") return s " (%)"
        if (u == "ns" || u == "byte" || u == "sector" || u == "cycle") return s " (" u ")"
        return s
    }
    function metrics(spec,    n, a, i, kv, file, fchapter, fsize, fonly, fkernels, flabel, fline, istc, line, f, nk, nm, kname, mname, unit, val, k, m, row, gpu, commit, cell, legend) {
        n = split(spec, a, " ")
        file = a[1]; fchapter = ""; fonly = ""; fkernels = ""; flabel = ""; fline = ""
        fsize = "the default size"
        for (i = 2; i <= n; i++) {
            split(a[i], kv, "=")
            if (kv[1] == "chapter") fchapter = kv[2]
            else if (kv[1] == "size") fsize = kv[2]
            else if (kv[1] == "only") fonly = kv[2]
            else if (kv[1] == "kernels") fkernels = substr(a[i], 9)
            else if (kv[1] == "label") flabel = substr(a[i], 7)
            else if (kv[1] == "line") fline = kv[2]
        }
        if ((getline line < file) <= 0) {
            print "<em>No profile yet: run `tests/profile.sh` on a GPU to create `" file "`.</em>"
            return
        }
        nk = 0; nm = 0
        while ((getline line < file) > 0) {
            if (split(line, f, ",") < 7 || (fchapter != "" && f[3] != fchapter)) continue
            if (fonly != "" && index("," fonly ",", "," f[5] ",") == 0) continue
            if (fkernels != "" && index("," fkernels ",", "," f[4] ",") == 0) continue
            if (flabel != "" && index(f[4], flabel) == 0) continue
            # without kernels=, the columns of one line: tensor cores with line=tc, else FP32
            istc = f[4] ~ /_tc(\[|$)/ || f[4] == "cublas_bf16"
            if (fkernels == "" && (fline == "tc") != istc) continue
            gpu = f[1]; commit = f[2]
            if (!(f[4] in kseen)) { kseen[f[4]] = 1; kname[++nk] = f[4] }
            if (!(f[5] in mseen)) { mseen[f[5]] = 1; mname[++nm] = f[5]; unit[f[5]] = f[6] }
            # the value is the last field, whole: a kernel name such as
            # "void gemm_tma<2, 1>" is quoted and keeps its comma
            if (f[5] == "kernel") {
                for (i = 0; i < 6; i++) line = substr(line, index(line, ",") + 1)
                gsub(/"/, "", line); f[7] = line
            }
            val[f[4], f[5]] = f[7]
        }
        close(file)
        if (nk == 0) { print "<em>No rows in `" file "` match `" spec "`.</em>"; return }
        # Rows are labelled in words (the table must fit the page); the legend
        # under it gives each label'"'"'s Nsight Compute metric.
        row = "| metric |"
        # "kernel[KNOB=1 KNOB=2]" -> "kernel KNOB=1 KNOB=2": a header that can wrap
        for (k = 1; k <= nk; k++) { cell = kname[k]; sub(/\[/, " ", cell); sub(/\]$/, "", cell); row = row " " cell " |" }
        print row
        row = "|---|"
        for (k = 1; k <= nk; k++) row = row "---|"
        print row
        legend = ""
        for (m = 1; m <= nm; m++) {
            row = "| " metric_label(mname[m], unit[mname[m]]) " |"
            if (mname[m] != "kernel")
                legend = legend (legend == "" ? "" : "; ") metric_label(mname[m], unit[mname[m]]) ": `" mname[m] "`"
            for (k = 1; k <= nk; k++) {
                cell = (kname[k], mname[m]) in val ? val[kname[k], mname[m]] : "-"
                # the cuBLAS kernel name is ~120 characters: keep its start and its end
                if (mname[m] == "kernel" && length(cell) > 20) cell = substr(cell, 1, 10) "..." substr(cell, length(cell) - 6)
                row = row " " cell " |"
            }
            print row
        }
        print ""
        # the rows of tests/sass_profile.sh are its own sums, not Nsight Compute metrics
        if (file ~ /-sass/) legend = "each row sums, over the SASS instructions of one loop, the per-instruction counts or warp-state samples of the source view (the SourceCounters section); the script says how it finds the loops"
        print "<em>Nsight Compute on " gpu ", commit " commit ", one launch per kernel at " fsize "; from `" file "` (`" (file ~ /-answers/ ? "tests/classroom/answers.sh" : file ~ /-shapes/ ? "tests/shapes_sweep.sh" : file ~ /-storer/ ? "tests/storer_sweep.sh" : file ~ /-sass/ ? "tests/sass_profile.sh" : "tests/profile.sh") "`). Metrics: " legend ".</em>"
        split("", kseen); split("", mseen); split("", val)
    }
    # The cost of tracing (tests/trace.sh): per chapter, the default build, the
    # TRACE=1 build with its trace points unarmed, and one traced launch.
    function tracecost(spec,    file, line, f, rows, caption, cseen, cl, nc) {
        file = spec
        if ((getline line < file) <= 0) {
            print "<em>No measurements yet: run `make traces` on a GPU to create `" file "`.</em>"
            return
        }
        rows = 0
        while ((getline line < file) > 0) {
            if (split(line, f, ",") < 15) continue
            if (!(f[4] in cseen)) { cseen[f[4]] = 1; cl = cl (cl == "" ? "" : ", ") f[4]; nc++ }
            if (rows++ == 0) {
                caption = "Measured on " f[1] ", driver " f[2] ", CUDA " f[3] ", commit " f[4] ", " f[5] "; one run of each build; from `" file "` (`make traces`)."
                print "| chapter | kernel | M x N x K | default build, median ms | TRACE=1 build, unarmed | one traced launch | steps recorded (SMs 0-1) |"
                print "|---|---|---|---|---|---|---|"
            }
            printf "| %s | %s | %sx%sx%s | %.3f | %.3f (%+.1f%%) | %.3f (%+.1f%%) | %s |\n", f[6], f[7], f[8], f[9], f[10], \
                f[13], f[14], 100 * (f[14] / f[13] - 1), f[15], 100 * (f[15] / f[13] - 1), f[11]
        }
        close(file)
        if (rows == 0) print "<em>No rows in `" file "`.</em>"
        else { print ""; print "<em>" several(caption, nc, cl, file) "</em>" }
    }
    /<!-- chapter-nav -->/ {
        print
        print nav
        skipping = 1
        next
    }
    /<!-- exercise-table -->/ {
        print
        print exercises
        skipping = 1
        next
    }
    /<!-- lineage-table -->/ {
        print
        while ((getline line < lineage) > 0) print line
        close(lineage)
        skipping = 1
        next
    }
    /<!-- hardware-table -->/ {
        print
        while ((getline line < hardware) > 0) print line
        close(hardware)
        skipping = 1
        next
    }
    /<!-- runs-where-table -->/ {
        print
        while ((getline line < runs_where) > 0) print line
        close(runs_where)
        skipping = 1
        next
    }
    /<!-- trace-cost-table: .* -->/ {
        print
        spec = $0
        sub(/.*-table: */, "", spec)
        sub(/ *-->.*/, "", spec)
        tracecost(spec)
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
    /<!-- end (results|metrics|demo|hardware|runs-where|lineage|trace-cost|exercise)-table -->|<!-- end chapter-nav -->/ { skipping = 0; print; next }
    !skipping { print }
    ' "$1"
}

status=0
for page in README.md docs/*.md [0-9][0-9]_*/README.md; do
    [ -f "$page" ] || continue
    grep -qE '<!-- ((results|metrics|demo|trace-cost)-table:|(hardware|runs-where|lineage|exercise)-table|chapter-nav|value:|listing:)' "$page" || continue
    out=$(mktemp)
    render "$page" >"$out.tables"
    # then the figures quoted in the prose (docs/fill_values.py)
    if ! python3 docs/fill_values.py "$out.tables" >"$out" 2>"$out.err"; then
        sed "s#^$out.tables#$page#" "$out.err"
        status=1
    fi
    rm -f "$out.tables" "$out.err"
    if [ $check -eq 1 ]; then
        if ! cmp -s "$out" "$page"; then
            echo "$page: its results tables or quoted figures differ from the CSVs (run make tables):"
            diff "$page" "$out" | head -n 20 || true
            status=1
        fi
        rm -f "$out"
    else
        if ! cmp -s "$out" "$page"; then cat "$out" >"$page" && echo "updated $page"; fi
        rm -f "$out"
    fi
done
# the diff pages
mkdir -p docs/diffs
for f in "$lineage.d"/*.md; do
    page=docs/diffs/$(basename "$f")
    if [ $check -eq 1 ]; then
        cmp -s "$f" "$page" || { echo "$page differs from the chapters' kernel.cu (run make tables)"; status=1; }
    elif ! cmp -s "$f" "$page"; then
        cp "$f" "$page" && echo "updated $page"
    fi
done
for page in docs/diffs/*.md; do
    [ -e "$page" ] && [ ! -e "$lineage.d/$(basename "$page")" ] && { echo "$page: no such chapter pair any more"; status=1; }
done
exit $status
