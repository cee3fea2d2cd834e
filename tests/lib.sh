# Shell helpers shared by bench.sh, profile.sh, trace.sh, the sweeps and the
# classroom's scripts (sourced, not run); the suite (pytest) reads the same
# settings through tests/classroom/settings.py.

# settings CHAPTER: load tests/chapters/CHAPTER.sh into a clean set of
# variables (what each chapter's tests, benchmark and profile do).
settings() {
    unset PTX_MUST PTX_MUST_NOT PTX_MUST_TC PTX_MUST_STEP PIPELINE_API QUICK_SANITIZER SHAPE_ARGS SANITIZE_ARGS GPU_CASES QUICK_CASES \
        GPU_EXIT_CASES SANITIZE_CASES BENCH_KERNEL BENCH_ALSO_8192 BENCH_VARIANTS AB_VARIANTS BENCH_ARGS BENCH_DEMO_ARGS SANITIZE_VARIANTS PROFILE_KERNELS \
        PROFILE_VARIANTS PROFILE_SKIP SASS_KERNELS GEMM TRACE_ARGS TRACE_MORE_ARGS TRACE_TEST_ARGS TRACE_MUST CHECK_ONLY CHECK_PTX CHECK_GPU CHECK_FILES CHECK_BUILDS \
        KNOBS_TEST KNOBS_TEST_ARGS KNOB_FORMS KNOB_FIXED
    # PTX_MUST_STEP: "FILE:REGEX", what a step after the lesson (its own
    # file, e.g. 07's store_tc.cu) must put in its PTX
    PTX_MUST=() PTX_MUST_NOT=() PTX_MUST_TC=() PTX_MUST_STEP=() SHAPE_ARGS=() SANITIZE_ARGS=() GPU_CASES=() QUICK_CASES=() GPU_EXIT_CASES=()
    SANITIZE_CASES=()
    # AB_VARIANTS: bench variants within a few percent of the default,
    # timed again by tests/ab.sh in interleaved rounds
    BENCH_VARIANTS=() AB_VARIANTS=() BENCH_ARGS=() BENCH_DEMO_ARGS=() SANITIZE_VARIANTS=() PROFILE_VARIANTS=() PIPELINE_API=0 GEMM=1
    QUICK_SANITIZER=memcheck BENCH_KERNEL= BENCH_ALSO_8192= PROFILE_KERNELS= PROFILE_SKIP=
    # --trace: the runs the committed traces record (tests/trace.sh; a second
    # run, if set, for kernels that need another shape), the extra arguments
    # of the traced test run, and the steps that run must show
    TRACE_ARGS=() TRACE_MORE_ARGS=() TRACE_TEST_ARGS=() TRACE_MUST=()
    # make check-NN and grade-NN (tests/classroom/check.py): the files that
    # hold regions and their kernels, each copy's PTX rules, what only the
    # GPU part can check, other builds to run, and (a chapter whose table is
    # not a GEMM) the parts --only names
    CHECK_ONLY= CHECK_PTX=() CHECK_GPU=() CHECK_FILES=() CHECK_BUILDS=()
    # the knobs test (tests/test_gpu.py): a value other than its
    # default for every knob of the Makefile, the run's arguments, and how a
    # knob shows in a knobs string where not as NAME=value (NAME:PATTERN,
    # %v standing for the value; an extended regex), and the kernels whose
    # record of a knob is fixed, whatever it is set to (NAME:kernel)
    KNOBS_TEST=() KNOBS_TEST_ARGS=(--m 256 --n 192 --k 96 --reps 1 --warmup 0) KNOB_FORMS=() KNOB_FIXED=()
    # shellcheck source=/dev/null
    . "$ROOT/tests/chapters/$1.sh"
}

# region_files DIR: the sources in DIR with exercise regions
# (common/regions.awk), sorted, names relative to DIR.
region_files() { (cd "$1" && grep -l -- '// ---- exercise ' *.cu *.cuh *.c *.h 2>/dev/null | sort); }

# ncu_path: the Nsight Compute command line (fails when there is none)
ncu_path() { command -v ncu || { [ -x /usr/local/cuda/bin/ncu ] && echo /usr/local/cuda/bin/ncu; }; }

# sanitizer: the compute-sanitizer to run (empty when there is none)
sanitizer() { command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null; }

# A knob setting in BENCH_VARIANTS or SANITIZE_VARIANTS is KNOBS (comma-separated,
# measuring BENCH_KERNEL) or KERNEL:KNOBS (measuring a variant kernel).
variant_kernel() { case $1 in *:*) echo "${1%%:*}" ;; *) echo "$BENCH_KERNEL" ;; esac; }
variant_knobs() { echo "${1#*:}"; }

# variant_dir SETTING: a build directory name for a knob setting
variant_dir() { echo "variant-$(variant_knobs "$1" | tr ',=' '_-')"; }

# gpu_slug: "h100" for "NVIDIA H100 80GB HBM3" (the results files' names)
gpu_slug() {
    local s
    s=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1 | tr 'A-Z' 'a-z' |
        grep -oE '\b[a-z]{1,2}[0-9]{2,4}\b' | head -n1)
    echo "${s:-gpu}"
}

# merge_profile OUT NEW " chapter chapter ": write OUT (the columns of
# tests/profile.sh) with the rows of those chapters taken from NEW and the
# other chapters' rows kept
merge_profile() {
    {
        echo "gpu,commit,chapter,kernel,metric,unit,value"
        {
            [ -f "$1" ] && awk -F, -v chs="$3" 'NR > 1 && index(chs, " " $3 " ") == 0' "$1"
            cat "$2"
        } | sort -t, -k3,3 -s
    } >"$1.new" && mv "$1.new" "$1"
}

# case_words CASE: a case's arguments, one per line-separated word. Cases
# (GPU_CASES, QUICK_CASES, BENCH_ARGS, ...) are comma-separated words; a '+'
# stands for a comma inside one argument (--only=groups+reduce).
case_words() { echo "$1" | tr ',' ' ' | tr '+' ','; }

# chapter_of NN: the chapter directory numbered NN ("03" -> 03_warp_specialized),
# or nothing; chapter_numbers: every chapter's number, for usage lines
chapter_of() { [ -z "${1:-}" ] || { ls -d "$1"_*/ 2>/dev/null || true; } | head -n1 | tr -d /; }
chapter_numbers() { ls -d [0-9][0-9]_*/ | cut -c1-2 | tr '\n' ' '; }

# bench_build CHAPTER [SETTING]: build the chapter (or a knob setting of it)
# under tests/build/bench, leaving the user's own build alone; prints the program.
bench_build() {
    local name=${2:+$(variant_dir "$2")}
    local dir=$ROOT/tests/build/bench/$1/${name:-default} log=$ROOT/tests/build/logs/build-$1-${name:-default}.log
    mkdir -p "$ROOT/tests/build/logs"
    # shellcheck disable=SC2046
    make --no-print-directory -C "$ROOT/$1" BUILD="$dir" BIN="$dir/run" $(variant_knobs "${2:-}" | tr ',' ' ') >"$log" 2>&1 || {
        echo "build failed: $1 ${2:-} (${log#"$ROOT"/})" >&2
        return 1
    }
    echo "$dir/run"
}

# smem_settings CHAPTER: the SMEM_PER_BLOCK values (163 KB and 99 KB parts,
# common/arch.mk) whose settings differ from the chapter's default build: a
# knob (KNOBS_<class>) or a kernel left out (TOO_BIG_<class>)
smem_settings() {
    local ch=$1 base limit
    base=$(make -s --no-print-directory -C "$ch" print-KNOB_DEFS print-TOO_BIG)
    for limit in 166912 101376; do
        [ "$(make -s --no-print-directory -C "$ch" SMEM_PER_BLOCK=$limit print-KNOB_DEFS print-TOO_BIG)" = "$base" ] ||
            echo "$limit"
    done
}

# gemm_names CHAPTER: the kernels of the chapter's table, comma-separated
gemm_names() { grep -o '{"[a-z0-9_]*", \(\.launch_tc = \)\?launch_' "$1/main.c" | cut -d'"' -f2 | paste -sd, -; }

# The builds for other GPUs that make test-gpu makes (chapter:ARCH), never
# run here: the what-runs-where table (docs/gen_pages.py) calls them "built".
# One per shared-memory size a chapter's settings change for, Blackwell,
# and the tensor-core line's mma.sync path on Ampere, Ada and Blackwell
# (sm_80, sm_86, sm_89, sm_100a, sm_120a).
ARCH_BUILDS=(01_naive:sm_75 05_cooperative_grid:sm_75 01_naive:sm_89 02_double_buffer:sm_80 02_double_buffer:sm_89
             03_warp_specialized:sm_80 03_warp_specialized:sm_86 04_persistent:sm_80 04_persistent:sm_86
             04_persistent:sm_100a 04_persistent:sm_120a 06_clusters_dsmem:sm_100a 06_clusters_dsmem:sm_120a
             07_tma_multicast:sm_100a 07_tma_multicast:sm_120a)

# copy_repo DEST: the repository's files as a student's copy starts from:
# what git knows (tracked, or new and not ignored), or without git the tree
# less build outputs; students' exercises/ never
copy_repo() {
    mkdir -p "$1"
    if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$ROOT" ]; then
        git ls-files -co --exclude-standard -z | grep -zv '^exercises/' | xargs -0 tar -cf - | tar -C "$1" -xf -
    else
        tar --exclude=./.git --exclude=./tests/build --exclude=./exercises --exclude=./run --exclude='*/build' \
            --exclude='./[0-9][0-9]_*/run' --exclude=./tests/gpu/run --exclude=./tests/gpu/pipeline_synccheck \
            --exclude=./docs/html --exclude=./docs/latex --exclude=./docs/doxygen_warnings.log \
            --exclude=./handout.tar.gz -cf - . | tar -C "$1" -xf -
    fi
}
