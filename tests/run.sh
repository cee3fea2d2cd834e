#!/usr/bin/env bash
# The test suite (what `make test` and `make test-gpu` run).
#
#   bash tests/run.sh          host tests, then the GPU tests when a GPU is present
#   bash tests/run.sh --gpu    only the GPU tests (exit 3 when there is no GPU)
#   bash tests/run.sh --host   only the host tests
#   CHAPTERS="01_naive 02_double_buffer" bash tests/run.sh   only those chapters
#
# Every test's output goes to tests/build/logs/NAME.log; a failing test prints
# the end of its log. The last line is "N passed, N failed, N skipped" and
# the exit status is 1 when anything failed.
#
# Host tests: unit tests of common/, every chapter builds with warnings as
# errors, each chapter's PTX contains its technique (PTX_MUST / PTX_MUST_NOT
# in the chapter Makefile), ./run exits 3 without a GPU and 2 on bad options,
# the make targets, the docs build and the results tables match the CSVs.
# GPU tests: every chapter verified at its default size and at odd shapes,
# every knob variant the chapter Makefile lists (BENCH_VARIANTS) verified,
# planted-fault kernels caught, compute-sanitizer clean.
set -u
cd "$(dirname "$0")/.."

MODE=all
case "${1:-}" in
--gpu) MODE=gpu ;;
--host) MODE=host ;;
"") ;;
*) echo "usage: $0 [--gpu|--host]" >&2; exit 2 ;;
esac

LOGS=tests/build/logs
mkdir -p "$LOGS"
PASSED=0 FAILED=0 SKIPPED=0
FAILED_NAMES=()
CHAPTERS=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ 2>/dev/null | tr -d /)}  # CHAPTERS="02_double_buffer" limits the run

have_gpu() { nvidia-smi -L >/dev/null 2>&1; }

log_of() { echo "$LOGS/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_').log"; }

report() { # name status(0=pass) log
    if [ "$2" -eq 0 ]; then
        PASSED=$((PASSED + 1))
        printf '  ok    %s\n' "$1"
    else
        FAILED=$((FAILED + 1))
        FAILED_NAMES+=("$1")
        printf '  FAIL  %s  (log: %s)\n' "$1" "$3"
        tail -n 15 "$3" | sed 's/^/        | /'
    fi
}

# t_run NAME CMD...: passes when CMD exits 0
t_run() {
    local name=$1 log
    shift
    log=$(log_of "$name")
    "$@" >"$log" 2>&1
    report "$name" $? "$log"
}

# t_exit CODE NAME CMD...: passes when CMD exits with CODE
t_exit() {
    local want=$1 name=$2 log rc
    shift 2
    log=$(log_of "$name")
    "$@" >"$log" 2>&1
    rc=$?
    echo "[exit code $rc, expected $want]" >>"$log"
    report "$name" $([ "$rc" -eq "$want" ] && echo 0 || echo 1) "$log"
}

t_skip() {
    SKIPPED=$((SKIPPED + 1))
    printf '  skip  %s  (%s)\n' "$1" "$2"
}

# ---------------------------------------------------------------- helpers

build_unit_tests() {
    mkdir -p tests/build &&
        ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 -isystem "$(cuda_home)/include" \
            tests/unit/test_common.c common/options.c common/stats.c common/matrix.c \
            common/verify.c common/report.c common/watchdog.c -lm -o tests/build/test_common
}

cuda_home() {
    local nvcc
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    dirname "$(dirname "$(readlink -f "$nvcc")")"
}

# A build passes only without a single warning (nvcc -Werror all-warnings
# does not cover every tool in the chain, so the log is read as well).
build_warning_free() { # dir [make args...]
    local dir=$1 out
    shift
    out=$(make --no-print-directory -C "$dir" WERROR=1 "$@" 2>&1)
    local rc=$?
    echo "$out"
    [ $rc -eq 0 ] || return 1
    if echo "$out" | grep -qi 'warning'; then
        echo "build printed a warning"
        return 1
    fi
}

ptx_check() { # chapter
    local ch=$1 ptx must mustnot p ok=0
    make --no-print-directory -C "$ch" ptx || return 1
    ptx="$ch/build/kernel.ptx"
    must=$(make -s --no-print-directory -C "$ch" print-PTX_MUST)
    mustnot=$(make -s --no-print-directory -C "$ch" print-PTX_MUST_NOT)
    [ -n "$must" ] || { echo "$ch/Makefile sets no PTX_MUST"; return 1; }
    for p in $must; do
        if grep -qE "$p" "$ptx"; then echo "found     '$p'"; else echo "MISSING   '$p'"; ok=1; fi
    done
    for p in $mustnot; do
        if grep -qE "$p" "$ptx"; then echo "UNWANTED  '$p'"; ok=1; else echo "absent    '$p' (as it should be)"; fi
    done
    return $ok
}

no_gpu_exit_3() { # chapter: with every GPU hidden, ./run must say so and exit 3
    local out rc
    out=$(CUDA_VISIBLE_DEVICES= "$1/run" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q 'no CUDA device'
}

old_arch_exit_3() { # chapter: built for sm_80, ./run must say it needs Hopper and exit 3 (no GPU needed)
    local ch=$1 dir=build/arch-sm_80 out rc
    make --no-print-directory -C "$ch" ARCH=sm_80 BUILD="$dir" BIN="$dir/run" WERROR=1 || return 1
    out=$("$ch/$dir/run" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q 'need.*Hopper'
}

bad_option_exit_2() { # chapter args...: exit 2 and a message naming the problem
    local ch=$1 out rc
    shift
    out=$("$ch/run" "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] && [ -n "$out" ]
}

help_exit_0() {
    local out
    out=$("$1/run" --help) || return 1
    echo "$out"
    echo "$out" | grep -q -- '--reps' && echo "$out" | grep -q 'exit codes'
}

chapter_target() { # make chapter-NN builds and points ./run at it
    local ch=$1 num=${1%%_*}
    make --no-print-directory "chapter-$num" &&
        [ "$(readlink run)" = "$ch/run" ] && ./run --help >/dev/null
}

docs_build() {
    make --no-print-directory docs && [ -f docs/html/index.html ]
}

sanitizer() { command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null; }

sanitize() { # tool program args...: clean run, and the tool really ran
    local tool=$1 out rc
    shift
    out=$("$(sanitizer)" --tool "$tool" --error-exitcode 99 "$@" 2>&1)
    rc=$?
    echo "$out"
    # racecheck ends with "RACECHECK SUMMARY: 0 hazards", the others with "ERROR SUMMARY: 0 errors"
    [ $rc -eq 0 ] && echo "$out" | grep -qE 'ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)'
}

# synccheck (CUDA 13.0) reports one "Missing wait" per committing thread at
# cuda::pipeline::producer_commit() even for the smallest correct use of a
# block-scoped pipeline (tests/gpu/pipeline_synccheck.cu; docs/measuring.md),
# and stops the kernel there. For chapters that use cuda::pipeline
# (PIPELINE_API := 1 in their Makefile) that report is accepted, and only
# that one; since the kernel stops, synccheck covers nothing after the first
# commit in them, which racecheck, memcheck, initcheck and the verification
# of every shape and variant cover instead.
sanitize_pipeline_chapter() { # program args...
    local out rc n missing commit
    out=$("$(sanitizer)" --tool synccheck --print-limit 1000000 "$@" 2>&1)
    rc=$?
    echo "$out" | grep -v '^=========     \|Host Frame' | head -n 40
    n=$(echo "$out" | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) error.*/\1/p' | head -n1)
    missing=$(echo "$out" | grep -c 'Barrier error detected. Missing wait.')
    commit=$(echo "$out" | grep -cE 'Device Frame: cuda::[_0-9a-z:]*pipeline<.*>::producer_commit\(\)')
    echo "synccheck: $n errors, $missing 'Missing wait', $commit of them in producer_commit; exit $rc"
    [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -eq "$missing" ] && [ "$n" -eq "$commit" ]
}

# The report above is still there for a minimal, correct pipeline program; if
# a new toolkit stops making it, this fails: then make the check strict again.
pipeline_report_still_known() {
    local out
    nvcc -std=c++17 -arch=sm_"$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')" \
        -o tests/gpu/pipeline_synccheck tests/gpu/pipeline_synccheck.cu || return 1
    tests/gpu/pipeline_synccheck copy || return 1
    out=$("$(sanitizer)" --tool synccheck tests/gpu/pipeline_synccheck copy 2>&1)
    echo "$out" | tail -n 5
    echo "$out" | grep -q 'Barrier error detected. Missing wait.'
}

sanitizer_catches_race() {
    local out
    out=$("$(sanitizer)" --tool racecheck --error-exitcode 99 tests/gpu/run --only race \
        --m 64 --n 64 --k 64 --reps 1 --warmup 0 2>&1)
    local rc=$?
    echo "$out"
    [ $rc -eq 99 ] && echo "$out" | grep -qi 'hazard'
}

variant_build_dir() { echo "build/variant-$(echo "$1" | tr ',=' '_-')"; }

mkvar() { make -s --no-print-directory -C "$1" "print-$2"; } # chapter VARIABLE: its value

# A chapter's Makefile lists extra GPU cases as words of comma-separated
# arguments (GPU_CASES: must verify; GPU_EXIT_CASES: CODE:args, must exit CODE).
gpu_cases() { # chapter
    local ch=$1 c code args
    for c in $(mkvar "$ch" GPU_CASES); do
        t_run "$ch: $c verified" "$ch/run" --reps 3 --warmup 1 $(echo "$c" | tr ',' ' ')
    done
    for c in $(mkvar "$ch" GPU_EXIT_CASES); do
        code=${c%%:*}
        args=${c#*:}
        t_exit "$code" "$ch: $args -> exit $code" "$ch/run" --warmup 0 --reps 1 $(echo "$args" | tr ',' ' ')
    done
}

# ------------------------------------------------------------- host tests

host_tests() {
    echo "host tests"
    if build_unit_tests >"$(log_of unit-build)" 2>&1; then
        report "unit: build (warnings are errors)" 0 "$(log_of unit-build)"
        for t in $(tests/build/test_common --list); do
            t_run "unit: $t" tests/build/test_common "$t"
        done
    else
        report "unit: build (warnings are errors)" 1 "$(log_of unit-build)"
    fi

    for ch in $CHAPTERS; do
        t_run "$ch: builds warning-free" build_warning_free "$ch"
        t_run "$ch: PTX has the technique" ptx_check "$ch"
        t_run "$ch: make chapter-${ch%%_*} points ./run at it" chapter_target "$ch"
        t_run "$ch: --help exits 0" help_exit_0 "$ch"
        t_run "$ch: no GPU -> exit 3 with a message" no_gpu_exit_3 "$ch"
        if [ "$(mkvar "$ch" HOPPER_ONLY)" = 1 ]; then
            t_run "$ch: built for sm_80 -> exit 3, needs Hopper" old_arch_exit_3 "$ch"
        fi
        t_run "$ch: --m -1 -> exit 2" bad_option_exit_2 "$ch" --m -1
        t_run "$ch: --m 0 -> exit 2" bad_option_exit_2 "$ch" --m 0
        t_run "$ch: --k abc -> exit 2" bad_option_exit_2 "$ch" --k abc
        t_run "$ch: --n 99999999999 -> exit 2" bad_option_exit_2 "$ch" --n 99999999999
        t_run "$ch: --reps (no value) -> exit 2" bad_option_exit_2 "$ch" --reps
        t_run "$ch: --bogus -> exit 2" bad_option_exit_2 "$ch" --bogus
        t_run "$ch: --only nosuchkernel -> exit 2" bad_option_exit_2 "$ch" --only nosuchkernel
    done
    t_run "tests/gpu (planted faults): builds warning-free" build_warning_free tests/gpu

    t_run "make help lists every chapter" bash -c \
        "out=\$(make --no-print-directory help) && for ch in $(echo $CHAPTERS); do echo \"\$out\" | grep -q \"chapter-\${ch%%_*}\" || exit 1; done"
    t_run "results tables match docs/results/*.csv" bash docs/gen_tables.sh --check
    if command -v doxygen >/dev/null; then
        t_run "make docs (Doxygen, warnings are errors)" docs_build
    else
        t_skip "make docs (Doxygen, warnings are errors)" "doxygen is not installed; .ci/run installs it"
    fi
}

# -------------------------------------------------------------- GPU tests

# Shapes every GEMM kernel must get right: tiny, prime-ish, not multiples of
# any tile, K not a multiple of 4 (no 16-byte loads), tall-skinny, short-wide.
SHAPES="1x1x1 17x33x9 127x255x63 1000x1000x1000 4097x4095x4099 6000x24x700 24x6000x700 300x200x5000"

gpu_tests() {
    local ch shape m n k seed v dir kernel variants tool sargs
    echo "GPU tests ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1))"
    for ch in $CHAPTERS; do
        make --no-print-directory -C "$ch" >/dev/null 2>&1
        t_run "$ch: default size verified" "$ch/run"
        if [ "$(mkvar "$ch" GEMM)" != 0 ]; then
            seed=100
            for shape in $SHAPES; do
                IFS=x read -r m n k <<<"$shape"
                seed=$((seed + 1))
                t_run "$ch: ${shape} verified" "$ch/run" --m "$m" --n "$n" --k "$k" --reps 2 --warmup 1 \
                    --seed $seed $(mkvar "$ch" SHAPE_ARGS)
            done
        fi
        gpu_cases "$ch"
        kernel=$(mkvar "$ch" BENCH_KERNEL)
        variants=$(mkvar "$ch" BENCH_VARIANTS)
        for v in $variants; do
            dir=$(variant_build_dir "$v")
            if make --no-print-directory -C "$ch" BUILD="$dir" BIN="$dir/run" $(echo "$v" | tr ',' ' ') \
                >"$(log_of "$ch-$v-build")" 2>&1; then
                for shape in 127x255x63 1000x1000x1000 4097x4095x4099; do
                    IFS=x read -r m n k <<<"$shape"
                    t_run "$ch: $kernel [$v] $shape verified" "$ch/$dir/run" --only "$kernel" \
                        --m "$m" --n "$n" --k "$k" --reps 1 --warmup 0 --seed 7
                done
            else
                report "$ch: $kernel [$v] builds" 1 "$(log_of "$ch-$v-build")"
            fi
        done
        sargs=$(mkvar "$ch" SANITIZE_ARGS | tr ',' ' ')
        sargs=${sargs:---m 130 --n 200 --k 70}
        if [ -n "$(sanitizer)" ]; then
            for tool in memcheck racecheck synccheck initcheck; do
                if [ "$tool" = synccheck ] && [ "$(mkvar "$ch" PIPELINE_API)" = 1 ]; then
                    t_run "$ch: compute-sanitizer synccheck: only cuda::pipeline's known report ($sargs)" \
                        sanitize_pipeline_chapter "$ch/run" $sargs --reps 1 --warmup 0
                    continue
                fi
                t_run "$ch: compute-sanitizer $tool clean ($sargs)" sanitize "$tool" "$ch/run" \
                    $sargs --reps 1 --warmup 0
            done
            # knob settings whose synchronization differs from the default's (storer warps)
            for v in $(mkvar "$ch" SANITIZE_VARIANTS); do
                dir=$(variant_build_dir "$v")
                make --no-print-directory -C "$ch" BUILD="$dir" BIN="$dir/run" $(echo "$v" | tr ',' ' ') >/dev/null 2>&1
                for tool in memcheck racecheck; do
                    t_run "$ch: $kernel [$v] compute-sanitizer $tool clean" sanitize "$tool" "$ch/$dir/run" \
                        --only "$kernel" --m 300 --n 200 --k 70 --reps 1 --warmup 0
                done
            done
        else
            t_skip "$ch: compute-sanitizer" "compute-sanitizer not found"
        fi
    done

    echo "planted faults (each must be caught)"
    make --no-print-directory -C tests/gpu >/dev/null 2>&1
    for f in tile_bound unwritten one_nan; do
        t_exit 1 "verification catches: $f" tests/gpu/run --only "$f" --m 127 --n 255 --k 63 --reps 1 --warmup 0
    done
    t_exit 5 "watchdog turns a hung kernel into exit 5" tests/gpu/run --only hang --m 64 --n 64 --k 64 --timeout 3
    if [ -n "$(sanitizer)" ]; then
        t_run "racecheck catches a missing __syncthreads()" sanitizer_catches_race
        t_run "synccheck's cuda::pipeline report is still the known one" pipeline_report_still_known
    fi
}

# ------------------------------------------------------------------- main

if [ "$MODE" != gpu ]; then host_tests; fi
if [ "$MODE" = gpu ] && ! have_gpu; then
    echo "make test-gpu: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
    exit 3
fi
if [ "$MODE" != host ]; then
    if have_gpu; then
        gpu_tests
    else
        t_skip "GPU tests" "no NVIDIA GPU here; run make test-gpu on a machine with one"
    fi
fi

if [ "$FAILED" -gt 0 ]; then
    echo "failed:"
    printf '  %s\n' "${FAILED_NAMES[@]}"
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
