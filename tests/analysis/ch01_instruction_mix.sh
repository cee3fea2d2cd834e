#!/usr/bin/env bash
# Chapter 01's naive and tiled kernels side by side: which pipes their
# instructions use, how many global and shared loads they issue, how many
# of the global loads L1 serves, and their SASS (the page's "why the naive
# kernel's FMA pipe is busier" and "why 32x fewer loads are 2.5x less L2
# traffic" come from these). On a GPU with ncu and cuobjdump:
#
#   TUTORIAL_COMMIT=abc123 bash tests/analysis/ch01_instruction_mix.sh
#   SASS_ONLY=1 ...     the SASS file only
#     -> docs/results/<gpu>-01-mix.csv and docs/results/<gpu>-01-sass.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
. tests/lib.sh
slug=$(gpu_slug)
[ -n "${SASS_ONLY:-}" ] || PROFILE_KERNELS=naive,tiled PROFILE_VARIANTS= CHAPTERS=01_naive PROFILE_OUT="docs/results/$slug-01-mix.csv" \
PROFILE_METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,\
smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_fmalite.sum,smsp__inst_executed_pipe_alu.sum,\
smsp__inst_executed_pipe_lsu.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,\
smsp__sass_thread_inst_executed_op_integer_pred_on.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,\
sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_global_ld.sum,\
smsp__inst_executed_op_shared_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,\
lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum \
    bash tests/profile.sh
prog=$(bench_build 01_naive)
sass() { # kernel: its SASS (the functions are C++-mangled: _Z10gemm_naive...)
    cuobjdump -sass "$prog" | awk -v f="$1" '/Function : / { on = index($0, f "i") > 0 } on' |
        grep -E '^\s+/\*[0-9a-f]{4}\*/' | sed 's/ *\/\* 0x[0-9a-f]* \*\///'
}
{
    echo "# SASS of chapter 01's naive and tiled kernels ($(nvcc --version | tail -n1), ARCH from the GPU), commit ${TUTORIAL_COMMIT:-unknown}"
    for f in gemm_naive gemm_tiled; do
        echo "## $f: instruction counts (static, whole function)"
        sass "$f" | awk '{print $2}' | sed 's/\..*//; s/;//' | sort | uniq -c | sort -rn
        echo "## $f: SASS"
        sass "$f"
    done
} >"docs/results/$slug-01-sass.txt"
echo "wrote docs/results/$slug-01-mix.csv and docs/results/$slug-01-sass.txt"
