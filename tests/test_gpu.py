"""The GPU tiers. Quick (make test on a GPU): each chapter's default run,
two odd shapes and its quick cases, one compute-sanitizer tool, the planted
faults, a build for another GPU refused, a block too large refused. Full
(make test-gpu): every shape, case and knob setting, all four sanitizer
tools, each setting for smaller parts, the traces, the knobs' records; and
what needs no GPU but too long for make test: the builds for other GPUs,
the spill check at every measured setting."""

import os
import re
import subprocess

import pytest

import check
from test_host import SMEM_QUICK, check_smem, smem_arches
from conftest import (CHAPTERS, per_chapter, GPU, HANDOUT, TREE, WORK, Built, build_planted, built, chapter_settings,
                      jobs, sh)

need_gpu = pytest.mark.skipif(not GPU, reason="no NVIDIA GPU here; make test-gpu runs these on a machine with one")
no_handout = pytest.mark.skipif(HANDOUT, reason="a handout: the kernels are the student's (make check-NN)")

SHAPES = ["1x1x1", "17x33x9", "127x255x63", "1000x1000x1000", "4097x4095x4099", "6000x24x700", "24x6000x700",
          "300x200x5000"]
QUICK_SHAPES = ["127x255x63", "4097x4095x4099"]


def case_words(c):
    """A case's arguments: comma-separated words, '+' for a comma inside one."""
    return [w.replace("+", ",") for w in c.split(",")]


def sanitizer():
    """compute-sanitizer's path; the test is skipped where there is none."""
    san = check.sanitizer()
    if not san:
        pytest.skip("compute-sanitizer not found")
    return san


def compute_cap():
    return subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], stdout=subprocess.PIPE,
                          text=True).stdout.split("\n")[0].strip()


def variant_kernel(s, v):
    return v.split(":", 1)[0] if ":" in v else s["BENCH_KERNEL"]


def variant_knobs(v):
    return v.split(":", 1)[1] if ":" in v else v


def variant_dir(v):
    return "variant-" + variant_knobs(v).replace(",", "_").replace("=", "-")


def build_variant(ch, v):
    d = f"build/{variant_dir(v)}"
    return Built.get(f"{ch}-{variant_dir(v)}",
                     f"make --no-print-directory -j{jobs()} -C {ch} BUILD={d} BIN={d}/run "
                     + " ".join(variant_knobs(v).split(",")))


def run_ok(argv, say, want=0, env=None, timeout=1800):
    rc, out = sh(argv, env=env, timeout=timeout)
    say(" ".join(argv))
    say(out)
    assert rc == want, f"exit {rc} (wants {want}):\n{out[-3000:]}"
    return out


def sanitize(tool, argv, say, pipeline=False):
    """A clean compute-sanitizer run, and proof that the tool ran; for a
    chapter on cuda::pipeline (PIPELINE_API=1) synccheck's one known report
    at producer_commit() is accepted, and only it (docs/measuring.md)."""
    san = sanitizer()
    if tool == "synccheck" and pipeline:
        rc, out = sh([san, "--tool", "synccheck", "--print-limit", "1000000"] + argv, timeout=3600)
        say(out[-20000:])
        n = re.search(r"ERROR SUMMARY: (\d+) error", out)
        missing = out.count("Barrier error detected. Missing wait.")
        commit = len(re.findall(r"Device Frame: cuda::[_0-9a-z:]*pipeline<.*>::producer_commit\(\)", out))
        assert n and int(n.group(1)) > 0 and int(n.group(1)) == missing == commit, \
            f"synccheck: {n and n.group(1)} errors, {missing} 'Missing wait', {commit} in producer_commit"
        return
    rc, out = sh([san, "--tool", tool, "--error-exitcode", "99"] + argv, timeout=3600)
    say(out[-20000:])
    assert rc == 0 and re.search(r"ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\)",
                                 out), out[-3000:]


def sanitize_chapter(ch, tool, say):
    """A chapter's default build under a tool, at its sanitizer shape."""
    s = chapter_settings(ch)
    args = s["SANITIZE_ARGS"] or ["--m", "130", "--n", "200", "--k", "70"]
    sanitize(tool, [built(ch)] + args + ["--reps", "1", "--warmup", "0", "--timeout", "600"], say,
             pipeline=s["PIPELINE_API"] == "1")


def shape_args(shape, seed):
    m, n, k = shape.split("x")
    return ["--m", m, "--n", n, "--k", k, "--reps", "2", "--warmup", "1", "--seed", str(seed)]


# ------------------------------------------------------------- quick tier

def marked(*marks):
    """One decorator for a tier's marks (the first applied last, as when stacked)."""
    def apply(f):
        for m in reversed(marks):
            f = m(f)
        return f
    return apply


quick = marked(pytest.mark.gpu, pytest.mark.full, need_gpu, no_handout)  # make test on a GPU, and make test-gpu


def params(kind):
    """(chapter, case) pairs of a kind of run, for parametrize (per_chapter)."""
    return per_chapter(pairs(kind))


def pairs(kind):
    out = []
    for ch in CHAPTERS:
        s = chapter_settings(ch)
        if kind == "quick_shapes" and s["GEMM"] == "1":
            out += [(ch, x) for x in QUICK_SHAPES]
        elif kind == "shapes" and s["GEMM"] == "1":
            out += [(ch, x) for x in SHAPES if x not in QUICK_SHAPES]
        elif kind == "quick_cases":
            out += [(ch, c) for c in s["QUICK_CASES"]]
        elif kind == "gpu_cases":
            out += [(ch, c) for c in s["GPU_CASES"] if c not in s["QUICK_CASES"]]
        elif kind == "exit_cases":
            out += [(ch, c) for c in s["GPU_EXIT_CASES"]]
        elif kind == "variants":
            out += [(ch, v) for v in s["BENCH_VARIANTS"]]
        elif kind == "sanitize_variants":
            out += [(ch, v) for v in s["SANITIZE_VARIANTS"]]
        elif kind == "sanitize_cases":
            out += [(ch, v) for v in s["SANITIZE_CASES"]]
    return out


@pytest.mark.parametrize("ch", per_chapter())
@quick
def test_default_run(ch, say):
    run_ok([built(ch)], say)


@pytest.mark.parametrize("ch,shape", params("quick_shapes"))
@quick
def test_quick_shape(ch, shape, say):
    s = chapter_settings(ch)
    run_ok([built(ch)] + shape_args(shape, 100 + QUICK_SHAPES.index(shape)) + s["SHAPE_ARGS"], say)


@pytest.mark.parametrize("ch,case", params("quick_cases"))
@quick
def test_quick_case(ch, case, say):
    run_ok([built(ch), "--reps", "3", "--warmup", "1"] + case_words(case), say)


@pytest.mark.parametrize("ch", per_chapter())
@pytest.mark.gpu
@need_gpu
@no_handout
def test_quick_sanitizer(ch, say):
    sanitize_chapter(ch, chapter_settings(ch)["QUICK_SANITIZER"] or "memcheck", say)


def faults():
    out = [("tile_bound", 1), ("unwritten", 1), ("one_nan", 1), ("hang", 5)]
    if GPU and compute_cap() == "9.0":
        out += [("tc_unswizzled", 1), ("tc_k_tail", 1), ("tc_stale_acc", 1)]
    return out


@pytest.mark.parametrize("fault,code", faults())
@pytest.mark.gpu
@pytest.mark.full
@need_gpu
def test_planted_fault_caught(fault, code, say):
    """The verification fails each planted fault (exit 1); the watchdog turns
    a hung kernel into exit 5."""
    rc, out = build_planted()
    assert rc == 0, out
    args = ["--m", "64", "--n", "64", "--k", "64", "--timeout", "3"] if fault == "hang" else \
        ["--m", "127", "--n", "255", "--k", "63", "--reps", "1", "--warmup", "0"]
    run_ok(["tests/gpu/run", "--only", fault] + args, say, want=code)


@pytest.mark.gpu
@pytest.mark.full
@need_gpu
def test_wrong_arch_exit_3(say):
    """A build whose target cannot run on this GPU exits 3 and says how to
    rebuild: an architecture-specific one (an "a" target) runs on its own
    architecture only, and a plain target's PTX on none below it."""
    arch = "sm_90a" if compute_cap().startswith("8") else "sm_100a"
    rc, out = Built.get(f"01-{arch}", f"make --no-print-directory -C 01_naive ARCH={arch} BUILD=build/{arch} "
                                      f"BIN=build/{arch}/run")
    assert rc == 0, out
    out = run_ok([f"01_naive/build/{arch}/run"], say, want=3)
    assert f"this build is for {arch}, which cannot run on this GPU" in out


@quick
def test_smem_limit_exit_3(say):
    """The default build told that a block may have only 99 KB exits 3
    before launching, naming the build that fits."""
    out = run_ok([built("03_warp_specialized"), "--only", "warp_specialized", "--smem-limit", "101376", "--m", "256",
                  "--n", "256", "--k", "64", "--reps", "1", "--warmup", "0"], say, want=3)
    assert "make clean && make SMEM_PER_BLOCK=101376" in out


# -------------------------------------------------------------- full tier

full = pytest.mark.full
full_gpu = marked(full, need_gpu, no_handout)


@pytest.mark.parametrize("ch,shape", params("shapes"))
@full_gpu
def test_shape(ch, shape, say):
    s = chapter_settings(ch)
    run_ok([built(ch)] + shape_args(shape, 110 + SHAPES.index(shape)) + s["SHAPE_ARGS"], say)


@pytest.mark.parametrize("ch,case", params("gpu_cases"))
@full_gpu
def test_gpu_case(ch, case, say):
    run_ok([built(ch), "--reps", "3", "--warmup", "1"] + case_words(case), say)


@pytest.mark.parametrize("ch,case", params("exit_cases"))
@full_gpu
def test_exit_case(ch, case, say):
    code, args = case.split(":", 1)
    run_ok([built(ch), "--warmup", "0", "--reps", "1"] + case_words(args), say, want=int(code))


@pytest.mark.parametrize("ch,v", params("variants"))
@full_gpu
def test_variant_verified(ch, v, say):
    """Each measured knob setting (BENCH_VARIANTS) builds and verifies at odd shapes."""
    s = chapter_settings(ch)
    rc, out = build_variant(ch, v)
    assert rc == 0, out[-3000:]
    for shape in ["127x255x63", "1000x1000x1000", "4097x4095x4099"]:
        m, n, k = shape.split("x")
        run_ok([f"{ch}/build/{variant_dir(v)}/run", "--only", variant_kernel(s, v), "--m", m, "--n", n, "--k", k,
                "--reps", "1", "--warmup", "0", "--seed", "7"], say)


@pytest.mark.parametrize("ch", per_chapter())
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck", "initcheck"])
@full_gpu
def test_sanitizer(ch, tool, say):
    sanitize_chapter(ch, tool, say)


@pytest.mark.parametrize("ch,v", params("sanitize_variants"))
@pytest.mark.parametrize("tool", ["memcheck", "racecheck"])
@full_gpu
def test_sanitizer_variant(ch, v, tool, say):
    """Knob settings whose synchronization differs from the default's."""
    s = chapter_settings(ch)
    rc, out = build_variant(ch, v)
    assert rc == 0, out[-3000:]
    sanitize(tool, [f"{ch}/build/{variant_dir(v)}/run", "--only", variant_kernel(s, v), "--m", "300", "--n", "200",
                    "--k", "70", "--reps", "1", "--warmup", "0", "--timeout", "600"], say)


@pytest.mark.parametrize("ch,case", params("sanitize_cases"))
@full_gpu
def test_sanitizer_case(ch, case, say):
    """A sanitizer tool at a chapter's own shape (SANITIZE_CASES, TOOL:args)."""
    tool, args = case.split(":", 1)
    sanitize(tool, [built(ch)] + case_words(args) + ["--reps", "1", "--warmup", "0", "--timeout", "600"], say,
             pipeline=chapter_settings(ch)["PIPELINE_API"] == "1")


@pytest.mark.parametrize("ch", per_chapter())
@full_gpu
def test_trace_run(ch, say):
    """A TRACE=1 build's --trace run: verified, valid Chrome trace JSON, and
    a CSV with each step the chapter's kernel must show (TRACE_MUST)."""
    import json
    s = chapter_settings(ch)
    rc, out = Built.get(f"{ch}-trace", f"make --no-print-directory -j{jobs()} -C {ch} TRACE=1 WERROR=1 "
                                       f"BUILD=build/trace BIN=build/trace/run")
    assert rc == 0, out[-3000:]
    j = os.path.join(WORK, f"trace-{ch}.json")
    for f in (j, j[:-5] + ".csv"):
        if os.path.exists(f):
            os.unlink(f)
    gemm = ["--m", "300", "--n", "260", "--k", "200"] if s["GEMM"] == "1" else []
    run_ok([f"{ch}/build/trace/run", "--trace", j, "--reps", "1", "--warmup", "0"] + gemm + s["TRACE_TEST_ARGS"], say)
    ev = json.load(open(j))["traceEvents"]
    assert any(x["ph"] == "X" for x in ev)
    csvtext = open(j[:-5] + ".csv").read()
    missing = [step for step in s["TRACE_MUST"] if not re.search(rf"^[^#].*,{re.escape(step)},", csvtext, re.M)]
    assert not missing, f"no step {missing} in the trace's CSV"


@pytest.mark.parametrize("ch", per_chapter())
@full_gpu
def test_smem_settings(ch, say):
    """Each chapter built with a smaller part's settings (SMEM_PER_BLOCK) and
    run under that part's limit at odd shapes: every kernel that fits
    verified, each its Makefile declares too big left out with a line."""
    base = sh(["make", "-s", "--no-print-directory", "-C", ch, "print-KNOB_DEFS", "print-TOO_BIG"])[1]
    ran = 0
    for limit in ("166912", "101376"):
        if sh(["make", "-s", "--no-print-directory", "-C", ch, f"SMEM_PER_BLOCK={limit}", "print-KNOB_DEFS",
               "print-TOO_BIG"])[1] == base:
            continue
        ran += 1
        rc, out = Built.get(f"{ch}-smem-{limit}", f"make --no-print-directory -j{jobs()} -C {ch} "
                                                  f"SMEM_PER_BLOCK={limit} BUILD=build/smem-{limit} BIN=build/smem-{limit}/run")
        assert rc == 0, out[-3000:]
        big = sh(["make", "-s", "--no-print-directory", "-C", ch, f"SMEM_PER_BLOCK={limit}", "print-TOO_BIG"])[1].split()
        names = re.findall(r'\{"([a-z0-9_]*)", (?:\.launch_tc = )?launch_', open(os.path.join(TREE, ch, "main.c")).read())
        for shape in ("127x255x63", "4097x4095x4099"):
            m, n, k = shape.split("x")
            out = run_ok([f"{ch}/build/smem-{limit}/run", "--only", ",".join(names), "--smem-limit", limit, "--m", m,
                          "--n", n, "--k", k, "--reps", "1", "--warmup", "0", "--seed", "9"], say)
            for kn in big:
                assert f"'{kn}' not run: its block asks for" in out, f"{kn} not left out"
            for kn in names:
                assert kn in big or re.search(rf"^ *{kn} .* yes", out, re.M), f"{kn} not verified"
    if not ran:
        pytest.skip("its settings are the same on every part")


@pytest.mark.parametrize("ch", per_chapter())
@full_gpu
def test_knobs_recorded(ch, say):
    """Built with a value other than its default for every knob (KNOBS_TEST),
    the chapter's own kernels record the new values."""
    import csv
    s = chapter_settings(ch)
    knobs = sh(["make", "-s", "--no-print-directory", "-C", ch, "print-KNOBS"])[1].split()
    tests = dict(kv.split("=", 1) for kv in s["KNOBS_TEST"])
    assert all(k in tests for k in knobs), f"KNOBS_TEST sets no value for {[k for k in knobs if k not in tests]}"
    rc, out = Built.get(f"{ch}-knobs-test", f"make --no-print-directory -j{jobs()} -C {ch} WERROR=1 "
                                            f"BUILD=build/knobs-test BIN=build/knobs-test/run " + " ".join(s["KNOBS_TEST"]))
    assert rc == 0, out[-3000:]
    names = lambda c: re.findall(r'\{"([a-z0-9_]*)", (?:\.launch_tc = )?launch_', open(os.path.join(TREE, c, "main.c")).read())
    earlier = {n for c in CHAPTERS if c < ch for n in names(c)}
    own = [n for n in names(ch) if n not in earlier]
    only = ["--only", ",".join(own)] if own else []
    rows = lambda prog: {r["kernel"]: r["knobs"] for r in csv.DictReader(
        l for l in sh([prog] + s["KNOBS_TEST_ARGS"] + only + ["--csv"], env=dict(os.environ))[1].splitlines()
        if l.count(",") >= 10 and not l.startswith("#"))}
    d, t = rows(built(ch)), rows(f"{ch}/build/knobs-test/run")
    say(f"default: {d}\ntest: {t}")
    assert d and d.keys() == t.keys()
    defaults = {k: sh(["make", "-s", "--no-print-directory", "-C", ch, f"print-{k}"])[1].strip() for k in knobs}
    forms = dict(f.split(":", 1) for f in s["KNOB_FORMS"])
    fixed = {tuple(f.split(":", 1)) for f in s["KNOB_FIXED"]}

    def shows(kn, k, v):
        return re.search(forms.get(k, r"(^| )" + k + "=%v( |$)").replace("%v", re.escape(v)), kn) is not None
    bad = []
    for k, v in tests.items():
        assert v != defaults.get(k), f"{k}={v} is its default"
        seen = [n for n in t if shows(t[n], k, v)]
        stale = [n for n in d if shows(d[n], k, defaults[k]) and not shows(t[n], k, v) and (k, n) not in fixed]
        if not seen or stale:
            bad.append(f"{k}: recorded by {seen}; still the default in {stale}")
    assert not bad, bad


# The tensor-core line's warp-level path on this GPU: built for it with
# TC_MMA=mma_sync (sm_90a: setmaxnreg and TC_BN=256 as the wgmma build), and
# for ARCH=sm_80, whose compute_80 PTX the driver compiles here (the code an
# A100 runs: no setmaxnreg, TC_BN=128 in 03 and 04).
MMA_BUILDS = {"mma_sync": "TC_MMA=mma_sync", "sm_80": "ARCH=sm_80"}
MMA_SHAPES = ["127x255x63", "4097x4095x4099", "1x1000x1", "2304x4096x32"]


def tc_chapters():
    return [c for c in CHAPTERS if os.path.exists(os.path.join(TREE, c, "kernel_tc.cu"))]


def tc_kernels(ch):
    return re.findall(r'\{"([a-z0-9_]*)", \.launch_tc = launch_', open(os.path.join(TREE, ch, "main.c")).read())


@pytest.mark.parametrize("ch,b", per_chapter([(c, b) for c in tc_chapters() for b in MMA_BUILDS
                                              if b != "sm_80" or c < "05"]))
@full_gpu
def test_mma_sync_path(ch, b, say):
    """Every tensor-core kernel of the chapter on the mma.sync path verified
    at odd shapes (K % 8 != 0, 1 x N x 1, more tiles than resident blocks
    with a short K), and clean under memcheck and racecheck."""
    d = f"build/mma-{b}"
    rc, out = Built.get(f"{ch}-mma-{b}", f"make --no-print-directory -j{jobs()} -C {ch} WERROR=1 BUILD={d} "
                                          f"BIN={d}/run {MMA_BUILDS[b]}")
    assert rc == 0, out[-3000:]
    prog, only = f"{ch}/{d}/run", ",".join(tc_kernels(ch))
    for i, shape in enumerate(MMA_SHAPES):
        m, n, k = shape.split("x")
        out = run_ok([prog, "--only", only + ",cublas_bf16", "--m", m, "--n", n, "--k", k, "--reps", "2",
                      "--warmup", "1", "--seed", str(400 + i)], say)
        jit = b == "sm_80" and compute_cap() != "8.0"  # elsewhere the driver compiles its PTX
        assert "TC_MMA=mma_sync" in out and ("compute_80 PTX" in out) == jit, "not the path it names"
    for tool in ("memcheck", "racecheck"):
        sanitize(tool, [prog, "--only", only, "--m", "300", "--n", "200", "--k", "70", "--reps", "1", "--warmup",
                        "0", "--timeout", "600"], say)


@full
@need_gpu
def test_racecheck_catches_a_race(say):
    san = sanitizer()
    rc, out = build_planted()
    assert rc == 0, out
    rc, out = sh([san, "--tool", "racecheck", "--error-exitcode", "99", "tests/gpu/run", "--only", "race",
                  "--m", "64", "--n", "64", "--k", "64", "--reps", "1", "--warmup", "0"])
    say(out)
    assert rc == 99 and "hazard" in out.lower()


@full_gpu
def test_synccheck_report_still_known(say):
    """synccheck still reports 'Missing wait' for a minimal correct cuda::pipeline
    program; if a new toolkit stops, the pipeline chapters' check turns strict."""
    san = sanitizer()
    cc = compute_cap().replace(".", "")
    rc, out = sh(["nvcc", "-std=c++17", f"-arch=sm_{cc}", "-o", "tests/gpu/pipeline_synccheck",
                  "tests/gpu/pipeline_synccheck.cu"])
    assert rc == 0, out
    run_ok(["tests/gpu/pipeline_synccheck", "copy"], say)
    rc, out = sh([san, "--tool", "synccheck", "tests/gpu/pipeline_synccheck", "copy"])
    say(out)
    assert "Barrier error detected. Missing wait." in out


# ------------------------------------- host work too long for make test

@pytest.mark.parametrize("arch", [a for a in smem_arches() if a not in SMEM_QUICK])
@full
def test_smem_fits_same_class(arch, say):
    """make smem for the ARCHes whose class make test checks on another one."""
    check_smem(arch, say)


def listed_settings(ch):
    """Every knob setting a chapter's Makefile or test settings name, as
    (kernel or None, [K=V, ...]): the bench, sanitizer and profile variants,
    the knobs test, the extra check builds, and the Makefile's `make K=V`
    example lines."""
    s = chapter_settings(ch)
    out = []
    for v in s["BENCH_VARIANTS"] + s["SANITIZE_VARIANTS"] + s["PROFILE_VARIANTS"]:
        kernel, _, kv = v.rpartition(":")
        out.append((kernel or None, kv.split(",")))
    out.append((None, s["KNOBS_TEST"]))
    out += [(None, b.split(":")[0].split(",")) for b in s["CHECK_BUILDS"]]
    for line in open(os.path.join(TREE, ch, "Makefile")):
        m = re.match(r"#\s+make\s+((?:[A-Z_]+=\S+\s*)+)", line)
        if m:
            out.append((None, m.group(1).split()))
    return out


@pytest.mark.parametrize("ch", per_chapter())
@full
@no_handout
def test_listed_settings_build(ch, say):
    """Every setting a Makefile or a test names builds: the PTX of the
    chapter's own files for sm_90a (where a setting names a kernel, of the
    file that defines it), so a static_assert between knobs that depend on
    each other stops no listed setting."""
    own = sh(["make", "-s", "--no-print-directory", "-C", ch, "ARCH=sm_90a", "print-OWN_CU"])[1].split()
    tc = [f for f in own if "TC_BM" in open(os.path.join(TREE, ch, f)).read() or f.endswith("_tc.cu")]
    bad, seen = [], set()
    for i, (kernel, kv) in enumerate(listed_settings(ch)):
        if (kernel, tuple(kv)) in seen:
            continue
        seen.add((kernel, tuple(kv)))
        files = [f for f in own if kernel and re.search(rf"\bgemm_{kernel}\(", open(os.path.join(TREE, ch, f)).read())]
        if not files:  # a TC_ knob reaches the tensor-core files only, another knob the others only
            is_tc = {k.startswith("TC_") for k in (x.split("=")[0] for x in kv)}
            files = tc if is_tc == {True} else [f for f in own if f not in tc] if is_tc == {False} else own
        ptx = " ".join(f[:-3] for f in files)
        rc, out = sh(["make", "--no-print-directory", "-C", ch, "ARCH=sm_90a", f"BUILD=build/listed/{i}",
                      f"PTX_FILES={ptx}", "ptx"] + kv)
        say(f"{kernel or '-'} {' '.join(kv)} ({ptx}): exit {rc}")
        if rc != 0:
            bad.append(f"{kernel or ''} {' '.join(kv)}: {out[-600:]}")
    assert not bad, bad


# tests/lib.sh's ARCH_BUILDS: the what-runs-where table (docs/gen_pages.py) reads the same list
ARCH_BUILDS = [tuple(b.split(":")) for b in
               sh(["bash", "-c", '. tests/lib.sh; printf "%s\\n" "${ARCH_BUILDS[@]}"'])[1].split()]


@pytest.mark.parametrize("ch,arch", per_chapter([b for b in ARCH_BUILDS if b[0] in CHAPTERS]))
@full
@no_handout
def test_builds_for_other_gpus(ch, arch, say):
    """Builds for the other GPUs (built, never run here; docs/gen_pages.py's
    what-runs-where table calls them "built"): one per shared-memory size a
    chapter's settings change for, and Blackwell. Chapter 07 for sm_120a:
    ptxas accepts the multicast copies but says (an error under WERROR=1,
    so this build has none) that they are meant for sm_90a and sm_100a."""
    adv = (ch, arch) == ("07_tma_multicast", "sm_120a")
    rc, out = Built.get(f"{ch}-{arch}", f"make --no-print-directory -j{jobs()} -C {ch} ARCH={arch} "
                                        f"BUILD=build/{arch} BIN=build/{arch}/run" + ("" if adv else " WERROR=1"))
    say(out)
    assert rc == 0 and os.path.exists(os.path.join(TREE, ch, "build", arch, "run")), out[-3000:]
    if adv:
        assert "'.multicast::cluster' modifier" in out
    else:
        assert "warning" not in out.lower()


@pytest.mark.parametrize("ch", [p for p in per_chapter() if os.path.exists(os.path.join(TREE, p.values[0], "kernel_tc.cu"))])
@full
@no_handout
def test_tc_no_spills_measured_settings(ch, say):
    """Each tensor-core kernel of the chapter (kernel_tc.cu and its steps) at
    each tc setting the pages measure (BENCH_VARIANTS, PROFILE_VARIANTS,
    SANITIZE_VARIANTS), and at its defaults on the mma.sync path too:
    ptxas reports no stack frame and no spill."""
    s = chapter_settings(ch)
    nvcc = os.environ["TUTORIAL_NVCC_REAL"]
    ptxas = os.path.join(os.path.dirname(nvcc), "ptxas")
    steps = sh(["make", "-s", "--no-print-directory", "-C", ch, "print-STEP_CU"])[1].split()
    own = ["kernel_tc.cu"] + steps
    file_of = lambda k: next((f for f in own if re.search(rf"\bgemm_{k}\(", open(os.path.join(TREE, ch, f)).read())), None)
    runs = [(f, "") for f in own] + [(f, "TC_MMA=mma_sync") for f in own]
    runs += sorted({(file_of(v.split(":")[0]), variant_knobs(v))
                    for v in s["BENCH_VARIANTS"] + s["PROFILE_VARIANTS"] + s["SANITIZE_VARIANTS"]
                    if re.match(r"^[a-z_]*_tc:", v) and file_of(v.split(":")[0])})
    bad = []
    for f, v in runs:
        knobs = v.split(",") if v else []
        defs = sh(["make", "-s", "--no-print-directory", "-C", ch, "print-KNOB_DEFS", "print-TC_DEFS",
                   "ARCH=sm_90a"] + knobs)[1].split()
        out_ptx = os.path.join(WORK, f"spill-{ch}-{f[:-3]}-{variant_dir(v) if v else 'default'}.ptx")
        rc, out = sh([os.environ["NVCC"], "-ptx", "-std=c++17", "-arch=compute_90a"] + defs +
                     ["-o", out_ptx, f"{ch}/{f}"])
        if rc != 0:
            bad.append(f"{f} {v or 'default'}: no build")
            continue
        rc, out = sh([ptxas, "-arch=sm_90a", "-v", out_ptx, "-o", "/dev/null"])
        lines = sorted(set(re.findall(r".*bytes stack frame.*", out)))
        say(f"{f} {v or 'default'}: {lines}")
        if rc != 0 or not lines or not all(re.match(r"^\s*0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads$", l)
                                           for l in lines):
            bad.append(f"{f} {v or 'default'}: {lines}")
    assert not bad, bad
