#!/usr/bin/env bash
# Where a kernel's loops spend their instructions and their stalls, per
# SASS instruction. Nsight Compute's source view (the SourceCounters
# section: instructions executed and warp-state samples for every SASS
# instruction) is summed per loop into <dir>/<gpu>-sass.csv, in the columns
# of tests/profile.sh (gpu,commit,chapter,kernel,metric,unit,value), so the
# pages show it with a metrics-table. Rows of the chapters profiled now
# replace their old rows.
#
#   CHAPTERS=04_persistent bash tests/sass_profile.sh   (default dir: docs/results)
#
# A chapter takes part when its settings (tests/chapters/<chapter>.sh) name
# SASS_KERNELS; each runs once (--reps 1 --warmup 0 --no-verify) at the
# default size, under its own ncu, which profiles the first launch whose
# function name starts with "gemm_" (cuBLAS: whose name holds "gemm").
#
# A loop is found by what the hardware counted, not by reading the code:
# its instructions all execute the same number of times (warps x
# iterations). The compute loop is the largest such set that holds FFMAs,
# the copy loop the largest that holds the producers' copies (LDGSTS).
# Per loop: instructions per iteration of one warp, how many of them are
# integer arithmetic (address and index computations), and for the compute
# loop how many FFMAs write their sum to another register than the one they
# add to, the median distance, in instructions, from a shared-memory load to
# the first instruction that reads its value, and what share of its
# warp-state samples fall on each stall reason. Shares, not sample counts:
# ncu picks the sampling interval per kernel, so counts do not compare.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh
NCU=$(ncu_path) || { echo "ncu not found" >&2; exit 3; }

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
commit=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
dir=${RESULTS_DIR:-docs/results}
out=${SASS_OUT:-$dir/$(gpu_slug)-sass.csv}
mkdir -p "$dir" tests/build/logs
chapters=" ${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d / | tr '\n' ' ')} "
new=$(mktemp)
trap 'rm -f "$new"' EXIT

for ch in $chapters; do
    settings "$ch"
    [ -n "${SASS_KERNELS:-}" ] || continue
    prog=$(bench_build "$ch")
    for k in ${SASS_KERNELS//,/ }; do
        rep=tests/build/logs/sass-$ch-$k
        # ours are all gemm_*; cuBLAS's FP32 kernels have "gemm" inside their names (sm80_xmma_gemm_...)
        if [ "$k" = cublas ]; then match=regex:gemm; else match=regex:^gemm_; fi
        "$NCU" --clock-control none --kernel-name "$match" --launch-count 1 \
            --section SourceCounters --section WarpStateStats --import-source no -f -o "$rep" \
            "$prog" --only "$k" --no-verify --reps 1 --warmup 0 >"$rep.log" 2>&1
        "$NCU" --import "$rep.ncu-rep" --page source --csv --print-source sass >"$rep.csv"
        python3 - "$rep.csv" "$gpu" "$commit" "$ch" "$k" >>"$new" <<'PY'
import csv, re, statistics, sys
from collections import defaultdict
path, gpu, commit, chapter, kernel = sys.argv[1:]
rows = list(csv.reader(open(path)))
# row 0 names the kernel, row 1 the columns, then one row per SASS instruction
header = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
cols = {h: i for i, h in enumerate(rows[header])}
reasons = [h for h in rows[header] if h.startswith("stall_") and "Not Issued" not in h]
insts = []
for r in rows[header + 1:]:
    if len(r) < len(cols):
        continue
    sass = r[cols["Source"]].strip()
    op = (sass.split()[1] if sass.startswith("@") else sass.split()[0]) if sass else ""
    insts.append({"sass": sass, "op": op, "ex": int(r[cols["Instructions Executed"]] or 0),
                  "stalls": {s: float(r[cols[s]] or 0) for s in reasons}})
groups = defaultdict(list)  # execution count -> positions of the instructions
for i, x in enumerate(insts):
    if x["ex"] > 0:
        groups[x["ex"]].append(i)

def loop(pred):
    cands = [g for g in groups.values() if any(pred(insts[i]["op"]) for i in g)]
    return max(cands, key=lambda g: len(g) * insts[g[0]]["ex"]) if cands else None

def unpredicated(sass):  # the instruction without its guard predicate, if any
    return re.sub(r"^@!?U?P\w+\s+", "", sass)

INTEGER = re.compile(r"^(IADD3|IMAD|LEA|SHF|LOP3|ISETP|SEL|MOV|PRMT|IABS|UIADD3|UIMAD|ULEA|USHF|ULOP3|UMOV)(\.|$)")
w = csv.writer(sys.stdout, lineterminator="\n")
def put(metric, unit, value):
    w.writerow([gpu, commit, chapter, kernel, metric, unit, value])

compute = None
for name, pred in (("compute", lambda op: op.startswith("FFMA")), ("copy", lambda op: op.startswith("LDGSTS"))):
    g = loop(pred)
    if g is None or (name == "copy" and compute is not None and g == compute):
        continue  # no such loop, or (cuBLAS) one loop that both copies and computes
    if name == "compute":
        compute = g
    put(f"sass__{name}_loop_instructions", "inst", len(g))
    put(f"sass__{name}_loop_integer_instructions", "inst", sum(1 for i in g if INTEGER.match(insts[i]["op"])))
    if name != "compute":
        continue
    put("sass__compute_loop_ffma", "inst", sum(1 for i in g if insts[i]["op"].startswith("FFMA")))
    put("sass__compute_loop_lds", "inst", sum(1 for i in g if insts[i]["op"].startswith("LDS")))
    # FFMA d, a, b, c with d != c: the sum goes to another register than the one it adds to
    moved = 0
    for i in g:
        if insts[i]["op"].startswith("FFMA"):
            r = re.findall(r"\bR(\d+|Z)\b", unpredicated(insts[i]["sass"]))
            moved += len(r) == 4 and r[0] != r[3]
    put("sass__compute_loop_ffma_moved", "inst", moved)
    # distance from each LDS to the first later instruction of the loop that reads one of its registers
    body = [insts[i]["sass"] for i in g]
    dist = []
    for j, s in enumerate(body):
        m = re.match(r"LDS(\S*) R(\d+),", s)
        if not m:
            continue
        width = re.search(r"\.(64|128)", m.group(1))
        regs = {f"R{int(m.group(2)) + n}" for n in range(int(width.group(1)) // 32 if width else 1)}
        for d, t in enumerate(body[j + 1:], 1):
            t = unpredicated(t)
            srcs = re.split(r"[ ,\[\]+]+", t)[2:]  # after the opcode and the destination
            if any(x.split(".")[0] in regs for x in srcs):
                dist.append(d)
                break
    if dist:
        put("sass__compute_loop_lds_to_use_median", "inst", f"{statistics.median(dist):g}")
    total = sum(sum(insts[i]["stalls"].values()) for i in g)
    for s in ("stall_selected", "stall_not_selected", "stall_short_sb", "stall_no_inst", "stall_dispatch",
              "stall_long_sb", "stall_wait"):
        if s in reasons and total > 0:
            put(f"sass__compute_loop_samples_{s[6:]}", "%", f"{100 * sum(insts[i]['stalls'][s] for i in g) / total:.1f}")
PY
    done
done

merge_profile "$out" "$new" "$chapters"
echo "wrote $out"
