#!/usr/bin/env bash
# How many warps per SM chapter 03's warp-specialized GEMM can use: the
# kernel built with 1 to 16 producer warps beside its 8 consumer warps, one
# block per SM, and with two blocks per SM where the registers allow it,
# at 4096^3. Warps per SM = (PRODUCER_WARPS + 8) x blocks per SM (MIN_BLOCKS,
# which the launch bounds make the compiler plan its registers for). Every
# run is verified; ptxas's register and spill counts go beside the times.
#
#   TUTORIAL_COMMIT=abc123 bash tests/warps_sweep.sh   -> docs/results/<gpu>-warps.csv
#                                                        docs/results/<gpu>-warps-ptxas.txt
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
. tests/lib.sh
ch=03_warp_specialized
# PRODUCER_WARPS,MIN_BLOCKS,STAGES,BK: two blocks need a smaller ring to fit
settings="1,1,4,32 2,1,4,32 4,1,4,32 8,1,4,32 16,1,4,32 1,2,2,16 2,2,2,16 4,2,2,16"

nvidia-smi -L >/dev/null 2>&1 || { echo "warps_sweep.sh: no NVIDIA GPU here" >&2; exit 3; }
export TUTORIAL_COMMIT=${TUTORIAL_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)}
out="docs/results/$(gpu_slug)-warps.csv"
regs="docs/results/$(gpu_slug)-warps-ptxas.txt"
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
mkdir -p tests/build/logs docs/results

knobs() { IFS=, read -r p b s k <<<"$1"; echo "PRODUCER_WARPS=$p,MIN_BLOCKS=$b,STAGES=$s,BK=$k"; }

for x in $settings; do bench_build "$ch" "$(knobs "$x")" >/dev/null & done
wait
: >"$regs"
for x in $settings; do
    IFS=, read -r p b s k <<<"$x"
    echo "== $((p + 8)) warps per block x $b block(s) per SM: $(knobs "$x")"
    prog=$(bench_build "$ch" "$(knobs "$x")")
    "$prog" --only warp_specialized,cublas --csv 2>"tests/build/logs/warps.log" | tail -n +2 >>"$rows" || {
        tail -n 20 tests/build/logs/warps.log >&2
        exit 1
    }
    # what ptxas gave the kernel (registers per thread, spills) for this setting
    {
        echo "$(knobs "$x" | tr ',' ' '):"
        nvcc -std=c++17 $(make -s --no-print-directory -C "$ch" print-GENCODE 2>/dev/null || echo -arch=sm_90) \
            -Xptxas -v $(knobs "$x" | sed 's/^/-D/; s/,/ -D/g') -c "$ch/kernel.cu" -o /dev/null 2>&1 |
            grep -A3 "entry function.*gemm_warp_specialized" | grep -E "spill|Used" |
            sed 's/^ptxas info *: */  /; s/^ */  /'
    } >>"$regs"
done
{
    echo "gpu,driver,cuda,commit,date,chapter,kernel,m,n,k,knobs,ms_median,ms_min,ms_max,tflops,pct_cublas,verified"
    cat "$rows"
} >"$out"
echo "wrote $out and $regs"
cat "$out"
cat "$regs"
