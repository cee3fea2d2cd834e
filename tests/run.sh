#!/usr/bin/env bash
# The test suite: `make test` and `make test-gpu` run this.
#
#   bash tests/run.sh          make test: the host tier, then the quick GPU
#                              tier when a GPU is present
#   bash tests/run.sh --gpu    make test-gpu: the full GPU tier (exit 3 without a GPU)
#   bash tests/run.sh --host   the host tier only
#   bash tests/run.sh --classroom   on a GPU, the classroom kit's GPU tests alone:
#                              make check-NN passes each lesson and fails each
#                              wrong solution, and a sample class is graded
#   CHAPTERS="01_naive 02_double_buffer" bash tests/run.sh   only those chapters
#   JOBS=4 bash tests/run.sh   tests at a time (default: the machine's cores)
#   LIST=1 bash tests/run.sh --gpu   list the tests with their commands, run none
#
# Everything is built and run in a copy of the working tree,
# tests/build/tree, so `./run`, the chapters' own builds and docs/html stay
# exactly as the user left them; the last test checks that they did.
# What each chapter's tests do is set in tests/chapters/<chapter>.sh.
#
# Host tier: unit tests of common/; every chapter builds with warnings as
# errors (and for the other GPUs in ARCH_BUILDS, tests/lib.sh: one per
# shared-memory size a chapter's settings change for, and Blackwell for 06
# and 07; built, never run); `make smem` for every ARCH in common/arch.mk
# fits each kernel in that ARCH's shared memory, or its chapter declares it
# too big; its PTX has its technique; each knob has one home, its Makefile
# line (no source defines it; KNOB() records it); building below its compute capability stops with a
# message; `make help` there; ./run --help, bad options (exit 2) and no GPU
# (exit 3); `make chapter-NN`; make help, the results tables, the figures
# and the docs. The classroom: each chapter's exercise regions are
# well-formed; `make exercise-NN` builds the starter and `make check-NN`
# fails it; check-NN's PTX part passes the lesson code (then exit 3, the GPU
# hidden); each wrong solution (tests/classroom/wrong/) fails that PTX part
# on its own exercise, or, marked "expect: gpu", passes it (exit 3: only the
# GPU part can catch it); `make grade-03` grades a sample class;
# `make handout` leaves no answer in (tests/classroom/leaks.sh), and the
# handout's own host tier passes (NO_HANDOUT_TEST=1 leaves that out).
# In a handout (a file HANDOUT at the top) the chapters' kernels are the
# students' starters: their PTX techniques and GPU runs are not tested here
# (make check-NN does that), and their builds may warn.
# Quick GPU tier: each chapter's default run, two odd shapes (or its quick
# cases), one compute-sanitizer tool, the planted faults, a build for
# another GPU refused, a block larger than --smem-limit refused (exit 3).
# Full GPU tier: every shape, case and knob setting, all four sanitizer
# tools, the planted faults; make check-NN passes each lesson and fails its
# untouched starter and every wrong solution, and grades the sample class;
# each chapter's settings for smaller parts (SMEM_PER_BLOCK) verified under
# --smem-limit at odd shapes; each chapter built with every knob away from
# its default (KNOBS_TEST), its kernels' records showing the new values.
#
# Each test's output goes to tests/build/logs/NAME.log; a failing test
# prints the end of its log. The last line is "N passed, N failed, N skipped";
# the exit status is 1 when anything failed.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD

MODE=quick
case "${1:-}" in
--gpu) MODE=full ;;
--host) MODE=host ;;
--classroom) MODE=classroom ;;
"") ;;
*) echo "usage: $0 [--gpu|--host|--classroom]" >&2; exit 2 ;;
esac

have_gpu() { nvidia-smi -L >/dev/null 2>&1; }
if [ "$MODE" = full ] && ! have_gpu; then
    echo "make test-gpu: no NVIDIA GPU here (nvidia-smi -L failed)" >&2
    exit 3
fi

WORK=$ROOT/tests/build
TREE=$WORK/tree
LOGS=$WORK/logs
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
CHAPTERS=${CHAPTERS:-$(ls -d [0-9][0-9]_*/ | tr -d /)}
START=$(date +%s)
PASSED=0 FAILED=0 SKIPPED=0 DONE=0 TOTAL=0
FAILED_NAMES=()
rm -rf "$LOGS"
mkdir -p "$LOGS"

elapsed() { local s=$(($(date +%s) - START)); printf '%d:%02d' $((s / 60)) $((s % 60)); }
log_of() { echo "$LOGS/$(echo "$1" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-150).log"; }
# shellcheck source=tests/lib.sh
. tests/lib.sh

# ------------------------------------------------------------ the job queue
# queue WANT NAME CMD...: a test that passes when CMD, run in the tree,
# exits with WANT. run_queue runs them JOBS at a time and reports each as
# it finishes. A test that runs past TEST_LIMIT seconds fails.
TEST_LIMIT=${TEST_LIMIT:-900}
Q_WANT=() Q_NAME=() Q_CMD=()
queue() {
    local want=$1 name=$2
    shift 2
    Q_WANT+=("$want")
    Q_NAME+=("$name")
    Q_CMD+=("$(printf '%q ' "$@")")
}

report() { # name ok log
    DONE=$((DONE + 1))
    if [ "$2" -eq 1 ]; then
        PASSED=$((PASSED + 1))
        printf '[%4d/%-4d %6s]  ok    %s\n' "$DONE" "$TOTAL" "$(elapsed)" "$1"
    else
        FAILED=$((FAILED + 1))
        FAILED_NAMES+=("$1")
        printf '[%4d/%-4d %6s]  FAIL  %s  (log: %s)\n' "$DONE" "$TOTAL" "$(elapsed)" "$1" "${3#"$ROOT"/}"
        tail -n 15 "$3" | sed 's/^/        | /'
    fi
}

skip() {
    SKIPPED=$((SKIPPED + 1))
    printf '%18s  skip  %s  (%s)\n' "" "$1" "$2"
}

run_queue() { # jobs: run everything queued, at most `jobs` at a time
    local jobs=$1 i next=0 n=${#Q_NAME[@]} running=() still pid log rc
    local -A pid_of=()
    TOTAL=$((TOTAL + n))
    if [ -n "${LIST:-}" ]; then
        for i in "${!Q_NAME[@]}"; do printf '%s\n    exit %s: %s\n' "${Q_NAME[$i]}" "${Q_WANT[$i]}" "${Q_CMD[$i]}"; done
        Q_WANT=() Q_NAME=() Q_CMD=()
        return
    fi
    while [ "$next" -lt "$n" ] || [ "${#running[@]}" -gt 0 ]; do
        while [ "$next" -lt "$n" ] && [ "${#running[@]}" -lt "$jobs" ]; do
            log=$(log_of "${Q_NAME[$next]}")
            (
                cd "$TREE" || exit 99
                timeout -k 10 "$TEST_LIMIT" bash -c "${Q_CMD[$next]}" >"$log" 2>&1
                rc=$?
                echo "[exit code $rc, expected ${Q_WANT[$next]}]" >>"$log"
                echo "$rc" >"$log.rc"
            ) &
            pid_of[$!]=$next
            running+=($!)
            next=$((next + 1))
        done
        wait -n 2>/dev/null
        still=()
        for pid in "${running[@]}"; do
            if kill -0 "$pid" 2>/dev/null; then
                still+=("$pid")
            else
                wait "$pid" 2>/dev/null
                i=${pid_of[$pid]}
                log=$(log_of "${Q_NAME[$i]}")
                rc=$(cat "$log.rc" 2>/dev/null || echo none)
                report "${Q_NAME[$i]}" "$([ "$rc" = "${Q_WANT[$i]}" ] && echo 1 || echo 0)" "$log"
            fi
        done
        running=("${still[@]}")
    done
    Q_WANT=() Q_NAME=() Q_CMD=()
}

# --------------------------------------------- the tree the tests work in

# A copy of the working tree (uncommitted changes included) without build
# outputs; the tests build there with the chapters' default build directories.
make_tree() {
    rm -rf "$TREE"
    mkdir -p "$TREE"
    tar -C "$ROOT" --exclude=./.git --exclude=./tests/build --exclude=./run --exclude='./[0-9][0-9]_*/build' \
        --exclude='./[0-9][0-9]_*/run' --exclude=./tests/gpu/build --exclude=./tests/gpu/run \
        --exclude=./exercises --exclude=./handout.tar.gz \
        --exclude=./tests/gpu/pipeline_synccheck --exclude=./docs/html --exclude=./docs/latex -cf - . |
        tar -C "$TREE" -xf -
}

# What the user has built: where ./run points, each chapter's program and
# build directory, the planted-fault build and docs/html (names, sizes, times).
user_state() {
    (
        cd "$ROOT" || exit 1
        echo "run -> $(readlink run 2>/dev/null || echo '(none)')"
        find [0-9][0-9]_*/run [0-9][0-9]_*/build tests/gpu/run tests/gpu/build docs/html \
            -printf '%p %s %T@\n' 2>/dev/null | sort
        sha256sum [0-9][0-9]_*/run tests/gpu/run 2>/dev/null
    )
}
user_state >"$WORK/user-state.before"

user_build_untouched() {
    user_state >"$WORK/user-state.after"
    echo "compared: where ./run points, every chapter's run (sha256) and build/, tests/gpu, docs/html"
    head -n 1 "$WORK/user-state.after"
    for f in "$ROOT"/[0-9][0-9]_*/build/flags; do
        [ -f "$f" ] && echo "$(basename "$(dirname "$(dirname "$f")")") built with:" \
            $(sed 's/|.*//' "$f" | grep -oE -- '-D[A-Z_]+=[^ ]+' | sed 's/^-D//')
    done
    diff "$WORK/user-state.before" "$WORK/user-state.after"
}

# ------------------------------------------------------------ test helpers
# Each runs in the tree (its working directory) and exits 0 when it passes.

# A build passes only without a single warning (nvcc -Werror all-warnings
# does not cover every tool in the chain, so the log is read as well).
build_warning_free() { # dir [make args...]
    local dir=$1 out rc
    shift
    out=$(make --no-print-directory -C "$dir" WERROR=1 "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || return 1
    if echo "$out" | grep -qi 'warning'; then
        echo "build printed a warning"
        return 1
    fi
}

build_chapter() { # chapter: warning-free, and its PTX for ptx_check
    build_warning_free "$1" && make --no-print-directory -C "$1" WERROR=1 ptx
}

# Chapter 07 for sm_120a: ptxas accepts its multicast copies, but says
# (as an error under WERROR=1, so this build has none) that the feature is
# meant for sm_90a and sm_100a and expected to be slow elsewhere.
builds_with_multicast_advisory() { # chapter arch
    local out rc
    out=$(make --no-print-directory -C "$1" ARCH="$2" BUILD="build/$2" BIN="build/$2/run" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] && [ -x "$1/build/$2/run" ] && echo "$out" | grep -q "'.multicast::cluster' modifier"
}

build_unit_tests() {
    local nvcc
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    mkdir -p tests/build &&
        ${CC:-cc} -std=c11 -Wall -Wextra -Wpedantic -Werror -O1 \
            -isystem "$(dirname "$(dirname "$(readlink -f "$nvcc")")")/include" \
            tests/unit/test_common.c common/options.c common/stats.c common/matrix.c \
            common/verify.c common/report.c common/watchdog.c -lm -o tests/build/test_common
}

ptx_check() { # chapter
    local ch=$1 p ok=0
    settings "$ch"
    [ ${#PTX_MUST[@]} -gt 0 ] || { echo "tests/chapters/$ch.sh sets no PTX_MUST"; return 1; }
    for p in "${PTX_MUST[@]}"; do
        if grep -qE "$p" "$ch/build/kernel.ptx"; then echo "found     '$p'"; else echo "MISSING   '$p'"; ok=1; fi
    done
    # and in every chapter's default build, no trace point (only TRACE=1 has
    # them; %globaltimer itself is no sign: cuda::pipeline's waits read it)
    for p in "${PTX_MUST_NOT[@]}" 'tutorial_trace_target'; do
        if grep -qE "$p" "$ch/build/kernel.ptx"; then echo "UNWANTED  '$p'"; ok=1; else echo "absent    '$p' (as it should be)"; fi
    done
    # the tensor-core kernel (kernel_tc.cu, an sm_90a build): its own rules
    [ -f "$ch/kernel_tc.cu" ] || return $ok
    [ ${#PTX_MUST_TC[@]} -gt 0 ] || { echo "tests/chapters/$ch.sh sets no PTX_MUST_TC"; return 1; }
    for p in "${PTX_MUST_TC[@]}"; do
        if grep -qE "$p" "$ch/build/kernel_tc.ptx"; then echo "found     '$p' (kernel_tc)"; else echo "MISSING   '$p' (kernel_tc)"; ok=1; fi
    done
    return $ok
}

# The tensor-core kernel fits its registers at every setting the pages
# measure: ptxas on its PTX (the chapter's knobs, then each tc setting of
# BENCH_VARIANTS, PROFILE_VARIANTS and SANITIZE_VARIANTS) reports no stack
# frame and no spills. A spill costs local-memory round trips inside the
# loops (chapter 06's producers spilled at 40 registers with TC_CLUSTER=1).
tc_no_spills() { # chapter
    local ch=$1 v defs out line ok=0 tmp nvcc
    settings "$ch"
    nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
    tmp=$(mktemp -d)
    for v in "" $(printf '%s\n' "${BENCH_VARIANTS[@]}" "${PROFILE_VARIANTS[@]}" "${SANITIZE_VARIANTS[@]}" |
        sed -n 's/^[a-z_]*_tc://p' | sort -u); do
        # shellcheck disable=SC2086
        defs=$(make -s --no-print-directory -C "$ch" print-KNOB_DEFS ARCH=sm_90a ${v//,/ }) &&
            "$nvcc" -ptx -std=c++17 -arch=compute_90a $defs -o "$tmp/k.ptx" "$ch/kernel_tc.cu" &&
            out=$("$(dirname "$nvcc")/ptxas" -arch=sm_90a -v "$tmp/k.ptx" -o /dev/null 2>&1) || { echo "${v:-default}: no build"; ok=1; continue; }
        line=$(grep -E 'bytes stack frame' <<<"$out" | sort -u)
        echo "${v:-default knobs}: $line"
        [ -n "$line" ] && ! grep -vq '^ *0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$' <<<"$line" || ok=1
    done
    rm -rf "$tmp"
    return $ok
}

# A knob's one home is its Makefile line `KNOB ?= default  # meaning`: no
# source of the chapter defines it (but after an #undef, where a file
# overrides it on purpose), and no knobs string types its name and value
# (KNOB(NAME) records them, common/launch.cuh).
knob_one_home() { # chapter
    local ch=$1 k n src ok=0
    src=$(ls "$ch"/*.cu "$ch"/*.cuh "$ch"/*.h "$ch"/demos/* 2>/dev/null)
    for k in $(make -s --no-print-directory -C "$ch" print-KNOBS); do
        n=$(grep -cE "^$k +\?= *[^ #]+ *# *[^ ]" "$ch/Makefile")
        echo "$k: $n Makefile line(s) with a default and a meaning"
        [ "$n" = 1 ] || ok=1
        # shellcheck disable=SC2086
        if awk -v k="$k" '$1 == "#undef" && $2 == k { u = 1; next }
                          $1 == "#define" && $2 == k && !u { print FILENAME ": " $0; bad = 1 } { u = 0 }
                          END { exit !bad }' $src; then echo "  ^ $k defined in a source"; ok=1; fi
        # shellcheck disable=SC2086
        if grep -nE "\"[ ]?$k=\" *STR\($k\)" $src; then echo "  ^ $k typed in a knobs string: KNOB($k)"; ok=1; fi
    done
    return $ok
}

# Built with a value other than its default for every knob
# (tests/chapters/NN.sh's KNOBS_TEST), the chapter's own kernels record the
# new values: each that records a knob (NAME=value, or KNOB_FORMS) in the
# default run records the new value, and some kernel records each.
# Kernels linked from a parent chapter keep their own knobs and are left out.
knobs_recorded() { # chapter
    local ch=$1 k earlier own
    settings "$ch"
    for k in $(make -s --no-print-directory -C "$ch" print-KNOBS); do
        printf '%s\n' "${KNOBS_TEST[@]}" | grep -q "^$k=" || { echo "KNOBS_TEST sets no value for $k"; return 1; }
    done
    # the names that an earlier chapter's table has are its kernels, linked here
    earlier=$(for d in [0-9][0-9]_*/; do d=${d%/}; [[ "$d" < "$ch" ]] && gemm_names "$d" | tr , '\n'; done | sort -u)
    own=$(gemm_names "$ch" | tr , '\n' | grep -vxF -e cublas ${earlier:+-e "$earlier"} | paste -sd, -)
    "$ch/run" "${KNOBS_TEST_ARGS[@]}" ${own:+--only "$own"} --csv >"$ch/build/knobs-default.csv" || return 1
    "$ch/build/knobs-test/run" "${KNOBS_TEST_ARGS[@]}" ${own:+--only "$own"} --csv >"$ch/build/knobs-test.csv" || return 1
    python3 - "$ch" "$ch/build/knobs-default.csv" "$ch/build/knobs-test.csv" \
        "$(for k in $(make -s --no-print-directory -C "$ch" print-KNOBS); do
               echo "$k=$(make -s --no-print-directory -C "$ch" "print-$k")"; done)" \
        "$(printf '%s\n' "${KNOBS_TEST[@]}")" "$(printf '%s\n' "${KNOB_FORMS[@]}")" \
        "$(printf '%s\n' "${KNOB_FIXED[@]}")" <<'PY'
import csv, re, sys
ch, fdef, ftest, defaults, tests, forms, fixed = sys.argv[1:]
pairs = lambda t: {k.strip(): v.strip() for k, v in (l.split("=", 1) for l in t.split("\n") if l)}
defaults, tests = pairs(defaults), pairs(tests)
forms = dict(l.split(":", 1) for l in forms.split("\n") if l)
fixed = {tuple(l.split(":", 1)) for l in fixed.split("\n") if l}
rows = lambda f: {r["kernel"]: r["knobs"] for r in csv.DictReader(l for l in open(f) if not l.startswith("#"))}
d, t = rows(fdef), rows(ftest)
ok = bool(d) and d.keys() == t.keys()
print(f"{len(d)} kernels: {', '.join(d)}" if ok else f"kernels differ: {sorted(d)} / {sorted(t)}")
def shows(knobs, k, v):
    pat = forms.get(k, r"(^| )" + k + "=%v( |$)").replace("%v", re.escape(v))
    return re.search(pat, knobs) is not None
for k, v in tests.items():
    if v == defaults.get(k):
        print(f"{k}={v} is its default"); ok = False; continue
    seen = [n for n in t if shows(t[n], k, v)]
    stale = [n for n in d if shows(d[n], k, defaults[k]) and not shows(t[n], k, v) and (k, n) not in fixed]
    print(f"{k}: {defaults[k]} -> {v}: recorded by {', '.join(seen) or 'NONE'}"
          + (f"; still {defaults[k]} or absent in {', '.join(stale)}" if stale else ""))
    ok = ok and bool(seen) and not stale
for n in t: print(f"  {n}: {t[n]}")
sys.exit(0 if ok else 1)
PY
}

# make smem for one ARCH: each kernel's dynamic shared memory fits what
# that ARCH lets a block have (common/arch.mk), but for the kernels its
# chapter declares too big there (TOO_BIG_<class>), which must really not
# fit; each name is one the chapter's --only knows.
smem_fits() { # arch
    local a=$1 cc limit class ch name bytes big known ok=0
    cc=$(echo "$a" | tr -cd 0-9)
    limit=$(make -s --no-print-directory -C 01_naive ARCH="$a" print-SMEM_PER_BLOCK)
    class=$(make -s --no-print-directory -C 01_naive ARCH="$a" print-SMEM_CLASS)
    echo "$a: at most $limit B per block ($class)"
    for ch in $CHAPTERS; do
        [ "$cc" -ge "$(make -s --no-print-directory -C "$ch" print-MIN_CC)" ] || continue
        big=" $(make -s --no-print-directory -C "$ch" "print-TOO_BIG_$class") "
        known=" $(grep -o '{"[a-z0-9_]*", \(\.launch_tc = \)\?launch_' "$ch/main.c" | cut -d'"' -f2 | tr '\n' ' ') "
        while read -r name bytes; do
            if [ "${known/ $name /}" = "$known" ]; then
                echo "  $ch $name $bytes: NOT a kernel of $ch/main.c"; ok=1
            elif [ "${big/ $name /}" != "$big" ]; then
                if [ "$bytes" -gt "$limit" ]; then echo "  $ch $name $bytes: too big, declared"
                else echo "  $ch $name $bytes: declared too big (TOO_BIG_$class) but FITS"; ok=1; fi
            elif [ "$bytes" -le "$limit" ]; then echo "  $ch $name $bytes: fits"
            else echo "  $ch $name $bytes: DOES NOT FIT"; ok=1; fi
        done < <(make -s --no-print-directory -C "$ch" ARCH="$a" smem || echo "make-smem-failed 0")
    done
    return $ok
}

# Every launcher that opts in to shared memory names its kernels for make smem.
smem_reported() {
    local f ok=0
    for f in $(grep -l 'smem_opt_in((' [0-9][0-9]_*/*.cu [0-9][0-9]_*/demos/*.cu); do
        if grep -q '^SMEM_REPORT(' "$f"; then echo "$f: reports"; else echo "$f: calls smem_opt_in() and has NO SMEM_REPORT line"; ok=1; fi
    done
    return $ok
}

# Building for an ARCH below MIN_CC stops before compiling, naming the need.
below_min_refused() { # chapter
    local ch=$1 min below out rc
    min=$(make -s --no-print-directory -C "$ch" print-MIN_CC)
    case $min in 75) below=sm_70 ;; 80) below=sm_75 ;; 90) below=sm_89 ;; *) echo "MIN_CC $min?"; return 1 ;; esac
    out=$(make --no-print-directory -C "$ch" ARCH=$below BUILD=build/refused BIN=build/refused/run 2>&1)
    rc=$?
    echo "$out"
    [ $rc -ne 0 ] && echo "$out" | grep -q "chapter ${ch%%_*} needs compute capability ${min%?}\.${min#?} for" &&
        [ ! -e "$ch/build/refused/run" ]
}

make_help_lists_knobs() { # chapter
    local ch=$1 out k
    out=$(make --no-print-directory -C "$ch" help) || return 1
    echo "$out"
    for k in $(make -s --no-print-directory -C "$ch" print-KNOBS); do
        echo "$out" | grep -qE "^  $k=[^ ]+ +[a-z0-9]" || { echo "knob $k missing"; return 1; }
    done
}

no_gpu_exit_3() { # chapter: with every GPU hidden, ./run says so and exits 3
    local out rc
    out=$(CUDA_VISIBLE_DEVICES= "$1/run" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q 'no NVIDIA GPU or driver found' && echo "$out" | grep -q nvidia-smi
}

bad_option_exit_2() { # chapter args...: exit 2 and a message naming the problem
    local ch=$1 out rc
    shift
    out=$("$ch/run" "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] && [ -n "$out" ]
}

trace_needs_build() { # chapter: --trace in a build without trace points says how to get one, exit 2
    local out rc
    out=$("$1/run" --trace "$WORK/no-trace.json" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 2 ] && echo "$out" | grep -q "TRACE=1" && [ ! -e "$WORK/no-trace.json" ]
}

# A TRACE=1 build's --trace run: verified, valid Chrome trace JSON, and a CSV
# with each step the chapter's lesson kernel must show (TRACE_MUST).
trace_run_ok() { # chapter args...
    local ch=$1 json=$WORK/trace-$1.json step
    shift
    rm -f "$json" "${json%.json}.csv"
    "$ch/build/trace/run" --trace "$json" --reps 1 --warmup 0 "$@" || return 1
    python3 -c 'import json, sys; e = json.load(open(sys.argv[1]))["traceEvents"]; print(len(e), "events"); assert any(x["ph"] == "X" for x in e)' "$json" || return 1
    for step in "${TRACE_MUST[@]}"; do
        grep -q "^[^#].*,$step," "${json%.json}.csv" || { echo "no '$step' step in ${json%.json}.csv"; return 1; }
    done
}

help_exit_0() { # chapter: options, exit codes, and --only lists this chapter's names
    local out
    out=$("$1/run" --help) || return 1
    echo "$out"
    echo "$out" | grep -q -- '--reps' && echo "$out" | grep -q 'exit codes' && echo "$out" | grep -q 'from: '
}

chapter_targets() { # make chapter-NN builds (nothing to do here) and points ./run at it
    local ch
    for ch in "$@"; do
        # (a handout's starters may warn: their TODOs leave variables unused)
        make --no-print-directory "chapter-${ch%%_*}" WERROR=$([ -f HANDOUT ] && echo 0 || echo 1) &&
            [ "$(readlink run)" = "$ch/run" ] &&
            ./run --help >/dev/null || { echo "make chapter-${ch%%_*} failed"; return 1; }
    done
}

make_help_lists_chapters() {
    local out ch
    out=$(make --no-print-directory help) || return 1
    echo "$out"
    for ch in "$@"; do echo "$out" | grep -q "chapter-${ch%%_*}" || return 1; done
}

# The site builds without warnings, and a chapter's macros link to its own
# definitions (chapter 03's kernel uses PRODUCER_THREADS from 03's knobs.h,
# not from 04's or 06's, which define it too).
docs_build() {
    make --no-print-directory docs && [ -f docs/html/index.html ] || return 1
    local page=docs/html/03__warp__specialized_2kernel_8cu_source.html
    grep -q 'href="03__warp__specialized_2knobs_8h\.html#[a-f0-9]*">PRODUCER_THREADS<' "$page" &&
        ! grep -q 'href="0[46]__[^"]*">PRODUCER_THREADS<' "$page" || {
        echo "$page: PRODUCER_THREADS does not link to chapter 03's knobs.h"
        return 1
    }
}

# A build whose target cannot run on this GPU (sm_80 code on a Hopper, or
# sm_90a code on anything else) exits 3 and says how to rebuild.
wrong_arch_exit_3() {
    local arch=sm_80 out rc
    [ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | cut -d. -f1)" = 8 ] && arch=sm_90a
    make --no-print-directory -C 01_naive ARCH=$arch BUILD=build/$arch BIN=build/$arch/run || return 1
    out=$(01_naive/build/$arch/run 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q "this build is for $arch, which cannot run on this GPU"
}

# The default build (a Hopper's 227 KB settings) told that a block may have
# only 99 KB (--smem-limit, as on an RTX 40) exits 3 before launching, with
# the build that fits, not with the launch's opaque error.
smem_limit_exit_3() {
    local out rc
    out=$(03_warp_specialized/run --only warp_specialized --smem-limit 101376 --m 256 --n 256 --k 64 --reps 1 \
        --warmup 0 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q "make clean && make SMEM_PER_BLOCK=101376"
}

# A chapter built with a smaller part's settings (SMEM_PER_BLOCK) and run
# under that part's limit: every kernel that fits verified, and each one
# its Makefile declares too big left out with a line saying so.
smem_setting_ok() { # chapter limit args...
    local ch=$1 limit=$2 out rc k big
    shift 2
    out=$("$ch/build/smem-$limit/run" --only "$(gemm_names "$ch")" --smem-limit "$limit" "$@" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 0 ] || return 1
    big=$(make -s --no-print-directory -C "$ch" SMEM_PER_BLOCK="$limit" print-TOO_BIG)
    for k in $big; do echo "$out" | grep -q "'$k' not run: its block asks for" || { echo "MISSING: $k left out"; return 1; }; done
    for k in $(gemm_names "$ch" | tr , ' '); do
        [ "${big/$k/}" != "$big" ] || echo "$out" | grep -qE "^ *$k .* yes" || { echo "MISSING: $k verified"; return 1; }
    done
}

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
# (PIPELINE_API=1 in their settings) that report is accepted, and only that
# one; since the kernel stops, synccheck covers nothing after the first
# commit in them, which racecheck, memcheck, initcheck and the verification
# of every shape and variant cover instead.
sanitize_pipeline() { # program args...
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
    tests/gpu/pipeline_synccheck copy || return 1
    out=$("$(sanitizer)" --tool synccheck tests/gpu/pipeline_synccheck copy 2>&1)
    echo "$out" | tail -n 5
    echo "$out" | grep -q 'Barrier error detected. Missing wait.'
}

sanitizer_catches_race() {
    local out rc
    out=$("$(sanitizer)" --tool racecheck --error-exitcode 99 tests/gpu/run --only race \
        --m 64 --n 64 --k 64 --reps 1 --warmup 0 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 99 ] && echo "$out" | grep -qi 'hazard'
}

# The classroom (tests/classroom/): a chapter's exercise regions are
# well-formed, and each exercise its CHECK_PTX names exists.
regions_ok() { # chapter
    local ch=$1 files list c id
    files=$(region_files "$ch")
    [ -n "$files" ] || { echo "$ch has no exercise regions"; return 1; }
    # shellcheck disable=SC2086
    list=$(cd "$ch" && awk -v mode=list -f ../tests/classroom/regions.awk $files) || return 1
    echo "$list" | cut -f1-5
    # a region of an earlier chapter's exercise is that exercise's code, copied here
    for id in $(echo "$list" | cut -f3 | sort -u | grep -v "^${ch%%_*}\."); do
        c=$(chapter_of "${id%%.*}")
        if [ -z "$c" ] || [ "${id%%.*}" \> "${ch%%_*}" ] ||
            ! (cd "$c" && awk -v mode=list -f ../tests/classroom/regions.awk $(region_files .)) | cut -f3 | grep -qx "$id"; then
            echo "exercise $id: not one of chapter ${ch%%_*}'s, nor an earlier chapter's"
            return 1
        fi
    done
    if [ ! -f HANDOUT ]; then
        echo "$list" | cut -f5 | grep -q todo && { echo "a region of the lesson code holds only a TODO"; return 1; }
    fi
    settings "$ch"
    for c in "${CHECK_PTX[@]}"; do
        read -r id _ <<<"$c"
        echo "$list" | cut -f3 | grep -qx "$id" || { echo "CHECK_PTX names exercise $id, which has no region"; return 1; }
    done
}

# make exercise-NN writes and builds the starter; make check-NN fails it
# (in its PTX part, which needs no GPU).
starter_fails_check() { # chapter
    local n=${1%%_*} rc
    bash tests/classroom/exercise.sh "$n" || { echo "make exercise-$n failed"; return 1; }
    CUDA_VISIBLE_DEVICES= bash tests/classroom/check.sh "$n"
    rc=$?
    echo "check-$n on the untouched starter: exit $rc (expected 1)"
    [ $rc -eq 1 ]
}

# make check-NN on the lesson code: the PTX part passes; with the GPU hidden
# it then stops with exit 3 and says why.
lesson_passes_ptx_check() { # chapter
    local out rc
    out=$(CUDA_VISIBLE_DEVICES= DIR=$1 bash tests/classroom/check.sh "${1%%_*}" 2>&1)
    rc=$?
    echo "$out"
    [ $rc -eq 3 ] && echo "$out" | grep -q 'needs an NVIDIA GPU'
}

# On a GPU: make check-NN passes the lesson code (exit 0), and fails the
# untouched starter (exit 1), whose runs fail or hang.
lesson_passes_check() { DIR=$1 bash tests/classroom/check.sh "${1%%_*}"; }
starter_fails_check_gpu() { # chapter
    local n=${1%%_*} rc
    bash tests/classroom/exercise.sh "$n" >/dev/null || { echo "make exercise-$n failed"; return 1; }
    bash tests/classroom/check.sh "$n"
    rc=$?
    echo "check-$n on the untouched starter: exit $rc (expected 1)"
    [ $rc -eq 1 ]
}

# The library of wrong solutions (tests/classroom/wrong/NN.N-name.patch, each
# with a line "# expect: ptx" or "# expect: gpu"): wrong_copy applies one to
# a copy of its chapter under tests/build/wrong/ (the other chapters and
# common/ linked, as make exercise-NN does) and prints the copy's chapter.
wrong_copy() { # patch
    local p=$1 name ch d e
    name=$(basename "$p" .patch)
    ch=$(chapter_of "${name%%.*}")
    [ -n "$ch" ] || { echo "$p: no chapter ${name%%.*}" >&2; return 1; }
    d=tests/build/wrong/$name
    rm -rf "$d" && mkdir -p "$d/$ch" || return 1
    for e in common tests [0-9][0-9]_*; do [ "$e" = "$ch" ] || ln -s "$PWD/$e" "$d/$e"; done
    tar -C "$ch" --exclude=./build --exclude=./run -cf - . | tar -C "$d/$ch" -xf - || return 1
    (cd "$d" && patch -p1 --quiet) <"$p" >&2 || { echo "$p does not apply to $ch" >&2; return 1; }
    echo "$d/$ch"
}
wrong_expect() { sed -n 's/^# expect: *\([a-z]*\).*/\1/p' "$1" | head -n1; }

# With the GPU hidden, make check-NN on a wrong solution: "expect: ptx" ones
# fail in the PTX part (exit 1), on their own exercise's row and no other;
# "expect: gpu" ones pass the PTX part (exit 3): only the GPU part can catch
# them, and this test records that.
wrong_solution_ptx() { # patch
    local p=$1 name id want dir out rc rows
    name=$(basename "$p" .patch) id=${name%%-*} want=$(wrong_expect "$p")
    case $want in ptx | gpu) ;; *) echo "$p: no line '# expect: ptx' or '# expect: gpu'"; return 1 ;; esac
    dir=$(wrong_copy "$p") || return 1
    out=$(CUDA_VISIBLE_DEVICES= DIR=$dir bash tests/classroom/check.sh "${name%%.*}" 2>&1)
    rc=$?
    echo "$out"
    rows=$(echo "$out" | awk '$1 ~ /^[0-9][0-9]\.[0-9]+$/ && $2 == "FAIL" { print $1 }' | paste -sd' ' -)
    if [ "$want" = ptx ]; then
        echo "expect: ptx. Exit $rc (wants 1); failing rows: ${rows:-none} (wants $id alone)"
        [ $rc -eq 1 ] && [ "$rows" = "$id" ]
    else
        echo "expect: gpu. Exit $rc (wants 3: the PTX part passes, only the GPU part can catch it)"
        [ $rc -eq 3 ] && [ -z "$rows" ]
    fi
}

# On a GPU: make check-NN fails every wrong solution (exit 1); an
# "expect: gpu" one through the GPU part (runs, racecheck), its PTX rows passing.
wrong_solution_gpu() { # patch
    local p=$1 name dir out rc rows gpu
    name=$(basename "$p" .patch)
    dir=$(wrong_copy "$p") || return 1
    out=$(DIR=$dir bash tests/classroom/check.sh "${name%%.*}" 2>&1)
    rc=$?
    echo "$out"
    rows=$(echo "$out" | awk '$1 ~ /^[0-9][0-9]\.[0-9]+$/ && $2 == "FAIL" { print $1 }' | paste -sd' ' -)
    gpu=$(echo "$out" | sed -n '/^the program/,$p' | grep -cE '^  .* FAIL ')
    echo "expect: $(wrong_expect "$p"). Exit $rc (wants 1); failing exercise rows: ${rows:-none}; failing GPU rows: $gpu"
    [ $rc -eq 1 ] || return 1
    [ "$(wrong_expect "$p")" != gpu ] || [ -z "$rows" ] || return 1
    # the GPU part fails it too, unless its header says the runs cannot show it (a race that does not show)
    [ "$gpu" -gt 0 ] || grep -q '^# gpu: passes' "$p" || { echo "the GPU part passes it, and its header does not say so"; return 1; }
}

# The instructor's solutions of the questions that change code
# (tests/classroom/solutions/, measured by answers.sh) still apply to the
# lesson code: a change to a kernel that breaks one is caught here.
solutions_apply() {
    local p bad=0
    for p in tests/classroom/solutions/*.patch; do
        if patch -p1 --dry-run --quiet <"$p" >/dev/null; then echo "applies: $p"; else echo "does not apply: $p"; bad=1; fi
    done
    return $bad
}

# make grade-03 on the sample class (tests/classroom/sample_class.sh): the
# lesson passes the PTX part of every exercise; the starter, the wrong
# solution and the submission whose main.c always passes do not get their
# points, the last graded with the repository's main.c; without a GPU the
# points are pending. The gradebook of the same class graded on the H100
# (tests/classroom/fixtures/grades-03.csv) must agree on the PTX column,
# and there only the lesson may have earned points; on a GPU the run must
# agree with it in every column but the speed.
grade_sample_class() {
    local c=$WORK/class03 g bad=0 fx=tests/classroom/fixtures/grades-03.csv cols
    bash tests/classroom/sample_class.sh 03 "$c" || return 1
    if have_gpu; then
        SUBMISSIONS=$c bash tests/classroom/grade.sh 03 || return 1
    else
        CUDA_VISIBLE_DEVICES= SUBMISSIONS=$c bash tests/classroom/grade.sh 03 || return 1
    fi
    g=$c/grades-03.csv
    cat "$g"
    [ "$(grep -c '^lesson,' "$g")" = 3 ] && [ "$(grep -c '^cheat,' "$g")" = 3 ] || { echo "not 3 rows per student"; return 1; }
    awk -F, '$1 == "lesson" && $3 != "ok" { print "the lesson fails the PTX part of " $2; b = 1 }
             $1 != "lesson" && NR > 1 && $7 != 0 && $7 != "pending" { print $1 " earned points for " $2; b = 1 }
             $1 == "wrong" && $2 == "03.1" && $3 != "FAIL" { print "the wrong solution passes 03.1"; b = 1 }
             END { exit b }' "$g" || bad=1
    [ "$(awk -F, '$1 == "starter" { print $3 }' "$g")" = "$(awk -F, '$1 == "cheat" { print $3 }' "$g")" ] ||
        { echo "the cheat's PTX column differs from the starter's"; bad=1; }
    grep -q "set aside: the submission's main.c differs" "$c/feedback-03/cheat.txt" || { echo "no word of the cheat's main.c"; bad=1; }
    if [ -f "$fx" ]; then
        cols='$1 "," $2 "," $3'
        have_gpu && cols='$1 "," $2 "," $3 "," $4 "," $5 "," $7 "," $8'
        diff <(awk -F, "{ print $cols }" "$fx") <(awk -F, "{ print $cols }" "$g") || { echo "differs from $fx"; bad=1; }
        awk -F, 'NR > 1 && (($1 == "lesson") != ($7 == $8 && $4 == "yes")) { print "fixture: " $0; b = 1 } END { exit b }' "$fx" ||
            bad=1
    fi
    return $bad
}

# make handout: no answers (nor the wrong solutions, whose diffs show them)
# and no instructor's page in it, and its own
# make test (host tier) passes.
handout_ok() {
    local t=$WORK/handout-test h
    bash tests/classroom/handout.sh || return 1
    rm -rf "$t" && mkdir -p "$t" && tar -C "$t" -xzf handout.tar.gz || return 1
    h=$(ls -d "$t"/*/)
    [ -f "$h/HANDOUT" ] && [ ! -e "$h/docs/instructor.md" ] || { echo "no HANDOUT, or the instructor's page is there"; return 1; }
    if [ -e "$h/tests/classroom/solutions" ] || [ -e "$h/tests/classroom/wrong" ] ||
        ls "$h"/docs/results/*-answers* >/dev/null 2>&1; then
        echo "the questions' solutions, the wrong solutions or the measured answers are in the handout"
        return 1
    fi
    if grep -rq 'instructor\.md' "$h" --include='*.md'; then echo "a page still links to instructor.md"; return 1; fi
    (cd "$h" && for f in [0-9][0-9]_*/*.cu [0-9][0-9]_*/*.cuh [0-9][0-9]_*/demos/*.cu; do awk -v mode=list -f tests/classroom/regions.awk "$f"; done) |
        awk -F'\t' '$5 == "written" { print "an answer is left in " $1 ":" $2; bad = 1 } END { exit bad }' || return 1
    # and no answer's line anywhere else in it (variants, later chapters, pages, diffs)
    bash tests/classroom/leaks.sh "$PWD" "$h" || { echo "answers found in the handout (above)"; return 1; }
    # a handout that keeps chapter 03's answers shows them, so the search does find them
    KEEP=03 bash tests/classroom/handout.sh >/dev/null || return 1
    rm -rf "$t.keep" && mkdir -p "$t.keep" && tar -C "$t.keep" -xzf handout.tar.gz || return 1
    if bash tests/classroom/leaks.sh "$PWD" "$(ls -d "$t.keep"/*/)" >/dev/null; then
        echo "leaks.sh finds nothing in a handout with KEEP=03: it cannot fail"
        return 1
    fi
    bash tests/classroom/handout.sh >/dev/null || return 1
    (cd "$h" && JOBS=$JOBS bash tests/run.sh --host)
}

# ------------------------------------------------------------------- tiers

# Chapters in the order their builds take longest, so parallel builds end together.
by_build_time() { local ch; for ch in 06 04 03 07 02 05 01; do echo "$CHAPTERS" | tr ' ' '\n' | grep "^${ch}_"; done; }

host_tier() {
    local ch p n
    echo "== host tests ($JOBS at a time)"
    queue 0 "unit tests build (warnings are errors)" build_unit_tests
    for ch in $(by_build_time); do
        if [ -f HANDOUT ]; then
            # a handout's kernels are starters: their TODOs leave variables unused
            queue 0 "$ch: builds (a handout: warnings allowed), and its PTX" make --no-print-directory -C "$ch" all ptx
        else
            queue 0 "$ch: builds warning-free, and its PTX" build_chapter "$ch"
        fi
    done
    queue 0 "tests/gpu (planted faults): builds warning-free" build_warning_free tests/gpu
    # Other GPUs, built and never run here (ARCH_BUILDS, tests/lib.sh): each
    # shared-memory size whose settings a chapter changes, and Blackwell
    # (docs/blackwell.md) for the chapters that need Hopper's features
    if [ ! -f HANDOUT ]; then
        for b in "${ARCH_BUILDS[@]}"; do
            ch=${b%%:*} a=${b#*:}
            echo $CHAPTERS | tr ' ' '\n' | grep -qx "$ch" || continue
            if [ "$b" = 07_tma_multicast:sm_120a ]; then
                queue 0 "$ch: builds for $a (not run here), ptxas advising that multicast will be slow there" \
                    builds_with_multicast_advisory "$ch" "$a"
            else
                queue 0 "$ch: builds warning-free for $a (not run here)" build_warning_free "$ch" ARCH=$a \
                    BUILD=build/$a BIN=build/$a/run
            fi
        done
    fi
    run_queue "$JOBS"

    if [ -x "$TREE/tests/build/test_common" ]; then
        for t in $("$TREE/tests/build/test_common" --list); do queue 0 "unit: $t" tests/build/test_common "$t"; done
    fi
    for ch in $CHAPTERS; do
        if [ -f HANDOUT ]; then
            skip "$ch: PTX has the technique" "a handout: the technique is the student's to write (make check-${ch%%_*})"
        else
            queue 0 "$ch: PTX has the technique" ptx_check "$ch"
            [ -f "$ch/kernel_tc.cu" ] &&
                queue 0 "$ch: the tensor-core kernel spills no registers at the measured settings" tc_no_spills "$ch"
            queue 0 "$ch: make check-${ch%%_*} on the lesson code: PTX part passes, no GPU -> exit 3" \
                lesson_passes_ptx_check "$ch"
        fi
        queue 0 "$ch: exercise regions are well-formed" regions_ok "$ch"
        queue 0 "$ch: make exercise-${ch%%_*} builds the starter, make check-${ch%%_*} fails it" starter_fails_check "$ch"
        queue 0 "$ch: each knob has one home (its Makefile line), KNOB() records it" knob_one_home "$ch"
        queue 0 "$ch: make help lists its knobs" make_help_lists_knobs "$ch"
        queue 0 "$ch: building below its compute capability stops with a message" below_min_refused "$ch"
        queue 0 "$ch: --help lists the options and its names" help_exit_0 "$ch"
        queue 0 "$ch: no GPU -> exit 3 with a message" no_gpu_exit_3 "$ch"
        queue 0 "$ch: --m -1 -> exit 2" bad_option_exit_2 "$ch" --m -1
        queue 0 "$ch: --m 0 -> exit 2" bad_option_exit_2 "$ch" --m 0
        queue 0 "$ch: --k abc -> exit 2" bad_option_exit_2 "$ch" --k abc
        queue 0 "$ch: --n 99999999999 -> exit 2" bad_option_exit_2 "$ch" --n 99999999999
        queue 0 "$ch: --reps (no value) -> exit 2" bad_option_exit_2 "$ch" --reps
        queue 0 "$ch: --bogus -> exit 2" bad_option_exit_2 "$ch" --bogus
        queue 0 "$ch: --only nosuchkernel -> exit 2" bad_option_exit_2 "$ch" --only nosuchkernel
        queue 0 "$ch: --trace without TRACE=1 -> exit 2, says how" trace_needs_build "$ch"
    done
    # shellcheck disable=SC2086
    queue 0 "make chapter-NN points ./run at each chapter" chapter_targets $CHAPTERS
    for a in $(make -s --no-print-directory -C 01_naive print-SMEM_ARCHES); do
        queue 0 "make smem ARCH=$a: every kernel fits, or its chapter says it cannot" smem_fits "$a"
    done
    queue 0 "every launcher that opts in to shared memory reports its kernels to make smem" smem_reported
    # shellcheck disable=SC2086
    queue 0 "make help lists every chapter" make_help_lists_chapters $CHAPTERS
    queue 0 "results tables and the figures quoted in the pages match docs/results/*.csv" bash docs/gen_tables.sh --check
    queue 0 "docs/fill_values.py fills each kind of figure and refuses bad markers" bash tests/unit/fill_values_test.sh
    queue 0 "figures are up to date with their data and sources" bash docs/figures.sh --check
    if command -v doxygen >/dev/null; then
        queue 0 "make docs (Doxygen, warnings are errors)" docs_build
    else
        skip "make docs (Doxygen, warnings are errors)" "doxygen is not installed; .ci/run installs it"
    fi
    [ -f HANDOUT ] || queue 0 "the questions' solutions (tests/classroom/solutions) apply to the lesson code" solutions_apply
    [ -f HANDOUT ] || queue 0 "make grade-03 grades a sample class: only the lesson earns points, a main.c that always passes is set aside" grade_sample_class
    # the wrong solutions (tests/classroom/wrong/): caught by the PTX part, or only on a GPU
    if [ ! -f HANDOUT ]; then
        for p in tests/classroom/wrong/*.patch; do
            [ -f "$p" ] || continue
            n=$(basename "$p" .patch)
            echo "$CHAPTERS" | tr ' ' '\n' | grep -q "^${n%%.*}_" || continue
            queue 0 "wrong solution $n: make check-${n%%.*}, no GPU: $(wrong_expect "$p" | sed \
                's/^ptx$/the PTX part fails it (exit 1)/; s/^gpu$/the PTX part passes, only the GPU part can catch it (exit 3)/')" \
                wrong_solution_ptx "$p"
        done
    fi
    run_queue "$JOBS"
    if [ ! -f HANDOUT ] && [ -z "${NO_HANDOUT_TEST:-}" ]; then
        queue 0 "make handout: no answers, no instructor's page; the handout's make test --host passes" handout_ok
        run_queue 1
    fi
}

# Shapes every GEMM kernel must get right: tiny, prime-ish, not multiples of
# any tile, K not a multiple of 4 (no 16-byte loads), tall-skinny, short-wide.
SHAPES="1x1x1 17x33x9 127x255x63 1000x1000x1000 4097x4095x4099 6000x24x700 24x6000x700 300x200x5000"
QUICK_SHAPES="127x255x63 4097x4095x4099"
GPU_JOBS=${GPU_JOBS:-$((JOBS < 8 ? JOBS : 8))}

# The chapter's cases (comma-separated arguments) and exit cases (CODE:args)
queue_cases() { # chapter cases...
    local ch=$1 c
    shift
    for c in "$@"; do
        # shellcheck disable=SC2046
        queue 0 "$ch: $c verified" "$ch/run" --reps 3 --warmup 1 $(case_words "$c")
    done
}

queue_shapes() { # chapter shapes
    local ch=$1 shape m n k seed=100
    for shape in $2; do
        IFS=x read -r m n k <<<"$shape"
        seed=$((seed + 1))
        queue 0 "$ch: $shape verified" "$ch/run" --m "$m" --n "$n" --k "$k" --reps 2 --warmup 1 --seed $seed \
            "${SHAPE_ARGS[@]}"
    done
}

queue_sanitizer() { # chapter program tool [args...]
    local ch=$1 prog=$2 tool=$3
    shift 3
    local args=("${SANITIZE_ARGS[@]:-}")
    [ -n "${args[*]}" ] || args=(--m 130 --n 200 --k 70)
    # the watchdog is not what these test: a slow tool must not trip it
    if [ "$tool" = synccheck ] && [ "$PIPELINE_API" = 1 ]; then
        queue 0 "$ch: compute-sanitizer synccheck: only cuda::pipeline's known report" \
            sanitize_pipeline "$prog" "${args[@]}" "$@" --reps 1 --warmup 0 --timeout 600
    else
        queue 0 "$ch: compute-sanitizer $tool clean${*:+ ($*)}" sanitize "$tool" "$prog" "${args[@]}" "$@" \
            --reps 1 --warmup 0 --timeout 600
    fi
}

queue_faults() {
    local f
    for f in tile_bound unwritten one_nan; do
        queue 1 "planted fault caught by the verification: $f" tests/gpu/run --only "$f" --m 127 --n 255 --k 63 \
            --reps 1 --warmup 0
    done
    # the tensor-core path (sm_90a): a tile in the wrong layout, a K tail
    # dropped, a persistent block's accumulators carried from tile to tile
    if [ "$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' ')" = 9.0 ]; then
        for f in tc_unswizzled tc_k_tail tc_stale_acc; do
            queue 1 "planted fault in the tensor-core path caught by the verification: $f" tests/gpu/run --only "$f" \
                --m 127 --n 255 --k 63 --reps 1 --warmup 0
        done
    fi
    queue 5 "planted fault: the watchdog turns a hung kernel into exit 5" tests/gpu/run --only hang --m 64 --n 64 \
        --k 64 --timeout 3
}

quick_gpu_tier() {
    local ch
    echo "== quick GPU tests on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1) ($GPU_JOBS at a time)"
    for ch in $CHAPTERS; do
        if [ -f HANDOUT ]; then
            skip "$ch: GPU runs" "a handout: the kernels are the student's (make check-${ch%%_*})"
            continue
        fi
        settings "$ch"
        queue 0 "$ch: default run verified" "$ch/run"
        if [ "$GEMM" = 1 ]; then queue_shapes "$ch" "$QUICK_SHAPES"; fi
        queue_cases "$ch" "${QUICK_CASES[@]}"
        if [ -n "$(sanitizer)" ]; then queue_sanitizer "$ch" "$ch/run" "$QUICK_SANITIZER"; fi
    done
    [ -n "$(sanitizer)" ] || skip "compute-sanitizer tests" "compute-sanitizer not found"
    queue_faults
    queue 0 "a build for another GPU -> exit 3 with how to rebuild" wrong_arch_exit_3
    [ -f HANDOUT ] || queue 0 "a block larger than --smem-limit -> exit 3 with the build that fits" smem_limit_exit_3
    run_queue "$GPU_JOBS"
}

full_gpu_tier() {
    local ch v shape m n k code args tool p
    echo "== full GPU tests on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)"
    echo "   builds: every chapter, knob setting and planted-fault kernel, $JOBS at a time"
    for ch in $(by_build_time); do
        queue 0 "$ch: builds" make --no-print-directory -C "$ch"
        settings "$ch"
        for v in $(for v in "${BENCH_VARIANTS[@]}" "${SANITIZE_VARIANTS[@]}"; do variant_knobs "$v"; done | sort -u); do
            # shellcheck disable=SC2046
            queue 0 "$ch [$v]: builds" make --no-print-directory -C "$ch" BUILD="build/$(variant_dir "$v")" \
                BIN="build/$(variant_dir "$v")/run" $(variant_knobs "$v" | tr ',' ' ')
        done
    done
    for ch in $CHAPTERS; do
        for l in $(smem_settings "$ch"); do
            queue 0 "$ch [SMEM_PER_BLOCK=$l]: builds" make --no-print-directory -C "$ch" SMEM_PER_BLOCK="$l" \
                BUILD="build/smem-$l" BIN="build/smem-$l/run"
        done
        queue 0 "$ch [TRACE=1]: builds" make --no-print-directory -C "$ch" TRACE=1 WERROR=1 BUILD=build/trace \
            BIN=build/trace/run
        settings "$ch"
        queue 0 "$ch [${KNOBS_TEST[*]}]: builds" make --no-print-directory -C "$ch" WERROR=1 BUILD=build/knobs-test \
            BIN=build/knobs-test/run "${KNOBS_TEST[@]}"
    done
    queue 0 "tests/gpu (planted faults): builds" make --no-print-directory -C tests/gpu
    [ -f tests/gpu/pipeline_synccheck.cu ] && queue 0 "tests/gpu/pipeline_synccheck: builds" nvcc -std=c++17 -arch=sm_"$(nvidia-smi \
        --query-gpu=compute_cap --format=csv,noheader | head -n1 | tr -d ' .')" -o tests/gpu/pipeline_synccheck \
        tests/gpu/pipeline_synccheck.cu
    run_queue "$JOBS"

    echo "   runs, $GPU_JOBS at a time"
    for ch in $CHAPTERS; do
        if [ -f HANDOUT ]; then
            skip "$ch: GPU runs" "a handout: the kernels are the student's (make check-${ch%%_*})"
            continue
        fi
        settings "$ch"
        queue 0 "$ch: make check-${ch%%_*} passes the lesson code" lesson_passes_check "$ch"
        queue 0 "$ch: make check-${ch%%_*} fails the untouched starter" starter_fails_check_gpu "$ch"
        queue 0 "$ch: default run verified" "$ch/run"
        queue 0 "$ch: every knob away from its default shows in its kernels' records" knobs_recorded "$ch"
        if [ "$GEMM" = 1 ]; then queue_shapes "$ch" "$SHAPES"; fi
        queue_cases "$ch" "${GPU_CASES[@]}"
        # shellcheck disable=SC2046
        queue 0 "$ch [TRACE=1]: --trace writes a verified run's steps (${TRACE_MUST[*]})" trace_run_ok "$ch" \
            $(if [ "$GEMM" = 1 ]; then echo --m 300 --n 260 --k 200; fi) "${TRACE_TEST_ARGS[@]}"
        for c in "${GPU_EXIT_CASES[@]}"; do
            code=${c%%:*} args=${c#*:}
            # shellcheck disable=SC2046
            queue "$code" "$ch: $args -> exit $code" "$ch/run" --warmup 0 --reps 1 $(case_words "$args")
        done
        for l in $(smem_settings "$ch"); do
            for shape in 127x255x63 4097x4095x4099; do
                IFS=x read -r m n k <<<"$shape"
                queue 0 "$ch [SMEM_PER_BLOCK=$l] under --smem-limit $l: $shape verified, the kernels too big left out" \
                    smem_setting_ok "$ch" "$l" --m "$m" --n "$n" --k "$k" --reps 1 --warmup 0 --seed 9
            done
        done
        for v in "${BENCH_VARIANTS[@]}"; do
            for shape in 127x255x63 1000x1000x1000 4097x4095x4099; do
                IFS=x read -r m n k <<<"$shape"
                queue 0 "$ch: $(variant_kernel "$v") [$(variant_knobs "$v")] $shape verified" \
                    "$ch/build/$(variant_dir "$v")/run" --only "$(variant_kernel "$v")" \
                    --m "$m" --n "$n" --k "$k" --reps 1 --warmup 0 --seed 7
            done
        done
        if [ -n "$(sanitizer)" ]; then
            for tool in memcheck racecheck synccheck initcheck; do queue_sanitizer "$ch" "$ch/run" "$tool"; done
            # knob settings whose synchronization differs from the default's (storer warps)
            for v in "${SANITIZE_VARIANTS[@]}"; do
                for tool in memcheck racecheck; do
                    queue 0 "$ch: $(variant_kernel "$v") [$(variant_knobs "$v")] compute-sanitizer $tool clean" \
                        sanitize "$tool" "$ch/build/$(variant_dir "$v")/run" --only "$(variant_kernel "$v")" \
                        --m 300 --n 200 --k 70 --reps 1 \
                        --warmup 0 --timeout 600
                done
            done
        fi
    done
    queue_faults
    queue 0 "a build for another GPU -> exit 3 with how to rebuild" wrong_arch_exit_3
    if [ -n "$(sanitizer)" ]; then
        queue 0 "racecheck catches a missing __syncthreads()" sanitizer_catches_race
        if [ -f tests/gpu/pipeline_synccheck.cu ]; then
            queue 0 "synccheck's cuda::pipeline report is still the known one" pipeline_report_still_known
        else
            skip "synccheck's cuda::pipeline report is still the known one" "a handout: its test program is not in it"
        fi
    else
        skip "compute-sanitizer tests" "compute-sanitizer not found"
    fi
    run_queue "$GPU_JOBS"

    # make check-NN on each wrong solution (tests/classroom/wrong/), after the
    # runs above, whose checks of the lessons built the lesson programs that
    # check.sh times against (so these jobs do not build them at once)
    if [ ! -f HANDOUT ]; then
        echo "   make check-NN on the wrong solutions, $GPU_JOBS at a time"
        for p in tests/classroom/wrong/*.patch; do
            [ -f "$p" ] || continue
            n=$(basename "$p" .patch)
            echo "$CHAPTERS" | tr ' ' '\n' | grep -q "^${n%%.*}_" || continue
            queue 0 "wrong solution $n: make check-${n%%.*} fails it on the GPU (expect: $(wrong_expect "$p"))" \
                wrong_solution_gpu "$p"
        done
        run_queue "$GPU_JOBS"
    fi
}

# The classroom kit on a GPU (also part of the full tier): each lesson
# passes make check-NN, each wrong solution fails it, a sample class is graded.
classroom_gpu_tier() {
    local ch p n
    echo "== the classroom kit on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1) ($GPU_JOBS at a time)"
    for ch in $CHAPTERS; do
        queue 0 "$ch: make check-${ch%%_*} passes the lesson code" lesson_passes_check "$ch"
    done
    run_queue "$GPU_JOBS"
    for p in tests/classroom/wrong/*.patch; do
        n=$(basename "$p" .patch)
        echo "$CHAPTERS" | tr ' ' '\n' | grep -q "^${n%%.*}_" || continue
        queue 0 "wrong solution $n: make check-${n%%.*} fails it on the GPU (expect: $(wrong_expect "$p"))" \
            wrong_solution_gpu "$p"
    done
    queue 0 "make grade-03 grades a sample class: only the lesson earns points, a main.c that always passes is set aside" \
        grade_sample_class
    run_queue "$GPU_JOBS"
}

# -------------------------------------------------------------------- main

# The tests run in `bash -c` (under timeout): hand them the helpers.
export ROOT TREE WORK LOGS
export -f $(declare -F | awk '{print $3}')

echo "copying the working tree to ${TREE#"$ROOT"/} (the tests build and run there)"
make_tree
case $MODE in
host) host_tier ;;
quick)
    host_tier
    if have_gpu; then quick_gpu_tier; else skip "GPU tests" "no NVIDIA GPU here; make test-gpu runs them on a machine with one"; fi
    ;;
full)
    full_gpu_tier
    ;;
classroom)
    have_gpu || { echo "--classroom needs an NVIDIA GPU" >&2; exit 3; }
    classroom_gpu_tier
    ;;
esac
queue 0 "the user's ./run, chapter builds and docs are untouched" user_build_untouched
run_queue 1

if [ "$FAILED" -gt 0 ]; then
    echo "failed:"
    printf '  %s\n' "${FAILED_NAMES[@]}"
fi
echo "($(elapsed) in all)"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
