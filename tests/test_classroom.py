"""The classroom kit (tests/classroom/): regions, starters, the checker, the
grader, the library of wrong solutions, the handout."""

import csv
import glob
import os
import re
import shutil
import time
import sys

import pytest

from conftest import CHAPTERS, per_chapter, GPU, HANDOUT, ROOT, TREE, WORK, built, sh

sys.path.insert(0, os.path.join(TREE, "tests", "classroom"))
import check  # noqa: E402
import regions  # noqa: E402

ch_param = pytest.mark.parametrize("ch", per_chapter())
no_handout = pytest.mark.skipif(HANDOUT, reason="a handout: the instructor's kit is not in it")
WRONG = sorted(os.path.basename(p)[:-6] for p in glob.glob(os.path.join(ROOT, "tests", "classroom", "wrong", "*.patch"))
               if any(c.startswith(os.path.basename(p)[:2] + "_") for c in CHAPTERS))


def awk_list(d, files):
    return sh(["awk", "-v", "mode=list", "-f", os.path.join(TREE, "common", "regions.awk")] + files, cwd=d)


# ----------------------------------------------------------------- regions

@pytest.mark.host
@ch_param
def test_regions_well_formed(ch, say):
    """The chapter's regions parse (regions.awk and regions.py agree on
    them); a region of an earlier chapter's exercise is that exercise's;
    the lesson holds no TODO; each CHECK_PTX exercise has a region; every
    copy of every exercise has a PTX rule or a CHECK_GPU line."""
    d = os.path.join(TREE, ch)
    files = check.region_files(d)
    assert files, f"{ch} has no exercise regions"
    rc, out = awk_list(d, files)
    say(out)
    assert rc == 0, out
    awk_rows = [l.split("\t")[:5] for l in out.splitlines()]
    py = check.read_regions(d, files)
    py_rows = sorted(([f, str(r.begin + 1), r.ex, r.title, r.state()] for f in files for r in py[f]),
                     key=lambda x: (x[0], int(x[1])))
    assert sorted(awk_rows, key=lambda x: (x[0], int(x[1]))) == py_rows, "regions.py reads the regions otherwise"
    for row in awk_rows:
        n = row[2][:2]
        assert n <= ch[:2], f"exercise {row[2]}: a later chapter's"
    if not HANDOUT:
        assert all(r[4] == "written" for r in awk_rows), "a region of the lesson code holds only a TODO"
    plan = check.Plan(ch, TREE)
    ids = {r[2] for r in awk_rows}
    for rule in plan.rules:
        assert rule[0] in ids, f"CHECK_PTX names exercise {rule[0]}, which has no region"
    gaps = plan.coverage(py)
    say("\n".join(gaps))
    assert not gaps, gaps


REGION_CASES = [
    ("pipe.producer_acquire();", None),
    ("if (x) { y(); } else { z(); } // a } in a comment", None),
    ('printf("#not a directive \\" }");', None),
    ("const long n = 1'000'000; char c = '}';", None),
    ("/* a { comment\n across lines } */ f();", None),
    ("#pragma unroll\nfor (int i = 0; i < 4; ++i) f(i);", None),
    ("  #pragma unroll 2", "ends with '#pragma unroll'"),
    ("#pragma unroll\n#pragma once", "preprocessor directive"),
    ("#include \"/dev/zero\"", "preprocessor directive"),
    ("  # define X 1", "preprocessor directive"),
    ("%:include <x>", "preprocessor operator"),
    ("_Pragma(\"once\") f();", "_Pragma"),
    ("}\n__global__ void evil() {", "closes a bracket"),
    ("if (x) {", "is not closed"),
    ("f(); /* open comment", "comment that the region does not close"),
    ("f(); // ends in a backslash \\", "backslash at the end"),
    ('const char *s = R"(x)";', "raw string"),
    ("asm volatile(\"exit;\");", "asm statement"),
    ("extern int system(const char *); system(\"x\");", "extern declaration"),
    ("__attribute__((constructor)) int x;", "__attribute__"),
    ("goto done;", "a goto"),
    ("x = a ??/\n;", "trigraph"),
    ("x = a <% b %>;", "digraph"),
    ("\x01", "control character"),
    ("f();\nif (0)", "ends with ')'"),
    ("f(); done:", "ends with ':'"),
    ("x = a +", "ends with '+'"),
    ("else { f(); }", "starts with 'else'"),
    ("struct S {}", "a type definition"),
    ("[[gnu::constructor]] int x;", "an attribute"),
    ("int caf\u00e9 = 1;", "not ASCII"),
    ("// caf\u00e9\nf(); /* \u00b2 */ s = \"\u00e9\";", None),
    ("", None),
]


@pytest.mark.host
@pytest.mark.parametrize("text,refused", REGION_CASES, ids=[c[0][:30] for c in REGION_CASES])
def test_region_rule(text, refused):
    """What a region may hold (tests/classroom/regions.py): a self-contained
    piece of code that reaches nothing past its markers."""
    why = regions.refusal(text.split("\n"))
    if refused is None:
        assert why is None, why
    else:
        assert why is not None and refused in why, why


# ------------------------------------------------------------ make check

@pytest.mark.host
@no_handout
@ch_param
def test_lesson_passes_ptx_check(ch, say):
    """make check-NN on the lesson: the PTX part of every copy passes; with
    the GPU hidden it then stops with exit 3 and says why."""
    built(ch)
    rc, out = sh(["python3", "tests/classroom/check.py", ch[:2]], env=dict(os.environ, DIR=ch, CUDA_VISIBLE_DEVICES=""))
    say(out)
    assert rc == 3 and "needs an NVIDIA GPU" in out, out[-3000:]


@pytest.mark.full
@ch_param
def test_starter_fails_ptx_check(ch, say):
    """make exercise-NN writes the starter (here without building it:
    test_starter_fails_check_gpu builds it) and make check-NN fails it in
    its PTX part (make test's hostile class has chapter 02's starter)."""
    n = ch[:2]
    rc, out = sh(["bash", "tests/classroom/exercise.sh", n], env=dict(os.environ, NOBUILD="1", FRESH="1"))
    say(out)
    assert rc == 0, out
    rc, out = sh(["python3", "tests/classroom/check.py", n], env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    say(out)
    assert rc == 1, f"check-{n} on the untouched starter: exit {rc} (wants 1)"


def wrong_copy(name, part):
    """A copy of the patch's chapter with the patch applied, under
    tests/build/wrong-PART/ (the other chapters and common/ linked): one per
    part, as the PTX and the GPU test of one patch may run at once."""
    ch = next(c for c in CHAPTERS if c.startswith(name[:2] + "_"))
    d = os.path.join(WORK, f"wrong-{part}", name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for e in ["common", "tests"] + [c for c in os.listdir(TREE) if re.match(r"\d\d_", c) and c != ch]:
        os.symlink(os.path.join(TREE, e), os.path.join(d, e))
    shutil.copytree(os.path.join(TREE, ch), os.path.join(d, ch), ignore=shutil.ignore_patterns("build", "run"))
    p = os.path.join(TREE, "tests", "classroom", "wrong", name + ".patch")
    rc, out = sh(["patch", "-p1", "--quiet"], cwd=d, input=open(p, "rb").read())
    assert rc == 0, f"{name}.patch does not apply to {ch}: {out}"
    return os.path.join(d, ch)


def wrong_header(name):
    text = open(os.path.join(TREE, "tests", "classroom", "wrong", name + ".patch")).read()
    expect = re.search(r"^# expect: *(\w+)", text, re.M)
    return (expect.group(1) if expect else None), re.search(r"^# gpu: passes", text, re.M) is not None


def failing_rows(out):
    return sorted({l.split()[0] for l in out.splitlines() if re.match(r"^\s+\d\d\.\d+\s+FAIL\b", l)})


@pytest.mark.full
@no_handout
@pytest.mark.parametrize("name", WRONG)
def test_wrong_solution_ptx(name, say):
    """With the GPU hidden, make check-NN on a wrong solution: an
    "expect: ptx" one fails the PTX part on its own exercise's row and no
    other; an "expect: gpu" one passes it (exit 3): only a GPU catches it."""
    expect, _ = wrong_header(name)
    assert expect in ("ptx", "gpu"), f"{name}.patch has no line '# expect: ptx' or '# expect: gpu'"
    d = wrong_copy(name, "ptx")
    rc, out = sh(["python3", "tests/classroom/check.py", name[:2]], env=dict(os.environ, DIR=d, CUDA_VISIBLE_DEVICES=""))
    say(out)
    rows = failing_rows(out)
    if expect == "ptx":
        assert rc == 1 and rows == [name[:4]], f"exit {rc}, failing rows {rows} (wants 1 and {name[:4]} alone)"
    else:
        assert rc == 3 and not rows, f"exit {rc}, failing rows {rows} (wants 3: the PTX part passes)"


@pytest.mark.host
@no_handout
def test_solutions_apply(say):
    """The instructor's solutions of the questions that change code still apply."""
    bad = []
    for p in sorted(glob.glob(os.path.join(TREE, "tests", "classroom", "solutions", "*.patch"))):
        rc, _ = sh(["patch", "-p1", "--dry-run", "--quiet"], input=open(p, "rb").read())
        say(f"{'applies' if rc == 0 else 'does not apply'}: {os.path.basename(p)}")
        bad += [] if rc == 0 else [p]
    assert not bad


# ------------------------------------------------------------- make grade

def gradebook(path):
    return list(csv.DictReader(open(path, newline="", encoding="utf-8")))


def tree_listing(d):
    out = []
    for base, dirs, files in os.walk(d):
        for f in dirs + files:
            p = os.path.join(base, f)
            st = os.lstat(p)
            out.append((os.path.relpath(p, d), st.st_mode, st.st_size, st.st_mtime_ns))
    return sorted(out)


@pytest.mark.host
@no_handout
def test_grade_hostile_class(say):
    """make grade-02 on a class written to get points without the work
    (tests/classroom/hostile_class.py), without a GPU: every row and reason
    as the fixture says (tests/classroom/fixtures/hostile-02.csv), the
    submissions untouched, nothing written outside the gradebook's folder
    and the grader's own."""
    subs = os.path.join(WORK, "hostile-02")
    out = subs + "-grades-02"
    shutil.rmtree(out, ignore_errors=True)
    rc, o = sh(["python3", "tests/classroom/hostile_class.py", "02", subs])
    assert rc == 0, o
    before = tree_listing(subs)
    rc, o = sh(["python3", "tests/classroom/grade.py", "02", "--submissions", subs, "--out", out, "--no-gpu", "--jobs", "2"],
               env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    say(o)
    assert rc == 0, o[-3000:]
    assert tree_listing(subs) == before, "the submissions changed"
    assert sorted(os.listdir(out)) == ["feedback", "grades-02.csv", "parts", "timing.json"]
    got = gradebook(os.path.join(out, "grades-02.csv"))
    want = gradebook(os.path.join(TREE, "tests", "classroom", "fixtures", "hostile-02.csv"))
    cols = ["student", "exercise", "ptx", "correct", "racecheck", "points", "max", "reason"]
    g = [[r[c] for c in cols] for r in got]
    w = [[r[c] for c in cols] for r in want]
    for row in g:
        say(row)
    assert g == w, "the gradebook differs from the fixture:\n" + "\n".join(
        f"got  {a}\nwant {b}" for a, b in zip(g, w) if a != b)
    fb = os.path.join(out, "feedback")
    assert len(os.listdir(fb)) == len({r["student"] for r in got})
    for f in os.listdir(fb):
        assert "root:" not in open(os.path.join(fb, f), errors="replace").read(), f"{f}: a system file in the feedback"


@pytest.mark.host
@no_handout
def test_hostile_runtime_regions_are_spliced(say):
    """The hostile-runtime class's host code (tests/classroom/hostile_runtime.py)
    is legal by the lexical rule: the splice takes every region, so what
    stops it is the jail, the budget and the room, which the GPU tier
    checks (test_grade_hostile_runtime_gpu)."""
    import hostile_runtime
    d = os.path.join(WORK, "hostile-runtime-regions")
    hostile_runtime.make(d, correct=1)
    ids = {"04.1", "04.2", "04.3"}
    for name in hostile_runtime.ATTACKS:
        for f in ("kernel.cu", "kernel_tc.cu"):
            lesson = regions.lines_of(open(os.path.join(TREE, "04_persistent", f)).read())
            sub = regions.lines_of(open(os.path.join(d, name, "04_persistent", f)).read())
            lines, notes = regions.splice(lesson, sub, ids, f)
            say(f"{name} {f}: {notes or 'taken'}")
            assert not notes, (name, f, notes)
            assert hostile_runtime.ATTACKS[name] in "\n".join(lines), (name, f)


@pytest.mark.host
@no_handout
def test_grade_without_namespace(say):
    """make grade-02 where bubblewrap cannot make a namespace (the grader's
    fallback: a clean environment and limits, a uid of its own as root): the
    lesson still earns the PTX part and the starter still fails it."""
    subs = os.path.join(WORK, "no-namespace-02")
    out = subs + "-grades-02"
    shutil.rmtree(out, ignore_errors=True)
    rc, o = sh(["python3", "tests/classroom/hostile_class.py", "02", subs])
    assert rc == 0, o
    for d in os.listdir(subs):
        if d not in ("lesson", "starter"):
            p = os.path.join(subs, d)
            shutil.rmtree(p) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
    grade = ("import sys; sys.path.insert(0, 'tests/classroom'); import sandbox; "
             "sandbox._works = lambda argv: False; import grade; sys.exit(grade.main(sys.argv))")
    rc, o = sh(["python3", "-c", grade, "02", "--submissions", subs, "--out", out, "--no-gpu", "--jobs", "2"],
               env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    say(o)
    assert rc == 0 and "NOT ISOLATED" in o, o[-3000:]
    got = {(r["student"], r["exercise"]): r["ptx"] for r in gradebook(os.path.join(out, "grades-02.csv"))}
    assert got == {("lesson", "02.1"): "ok", ("lesson", "02.2"): "ok", ("starter", "02.1"): "FAIL",
                   ("starter", "02.2"): "FAIL"}, got


@pytest.mark.host
@no_handout
def test_slurm_array(say):
    """make grade-02 SLURM=1 writes a job array and a merge step; a 4-task
    array of the PTX part runs on a one-node Slurm cluster started here
    (Debian's slurm-wlm: munged, slurmctld, slurmd as root) and its merged
    gradebook is the one make grade-02 writes in one go."""
    if not shutil.which("slurmctld") or not shutil.which("munged") or os.geteuid() != 0:
        pytest.skip("slurm-wlm and munge are not installed here (or not as root): apt-get install slurm-wlm")
    rc, out = sh(["bash", "tests/classroom/slurm_test.sh", os.path.join(WORK, "slurm")], timeout=900)
    say(out)
    assert rc == 0, out[-4000:]


# ---------------------------------------------------------------- handout

@pytest.mark.host
@no_handout
def test_handout_has_no_answers(say):
    """make handout: no answer anywhere in it (tests/classroom/leaks.sh), no
    instructor's page, solutions or wrong solutions; and the search finds
    03's answers in a handout made with KEEP=03, so it can fail."""
    h = handout(say)
    assert os.path.isfile(os.path.join(h, "HANDOUT")) and not os.path.exists(os.path.join(h, "docs", "instructor.md"))
    for p in ["tests/classroom/solutions", "tests/classroom/wrong", "tests/classroom/hostile_class.py"]:
        assert not os.path.exists(os.path.join(h, p)), f"{p} is in the handout"
    assert not glob.glob(os.path.join(h, "docs", "results", "*-answers*"))
    rc, out = sh(["grep", "-rl", "instructor\\.md", h, "--include=*.md"])
    assert rc == 1, f"a page still links to instructor.md: {out}"
    for f in glob.glob(os.path.join(h, "[0-9][0-9]_*", "*.cu*")) + glob.glob(os.path.join(h, "[0-9][0-9]_*", "demos", "*.cu")):
        rc, out = awk_list(os.path.dirname(f), [os.path.basename(f)])
        assert "\twritten\t" not in out, f"an answer is left in {f}"
    rc, out = sh(["bash", "tests/classroom/leaks.sh", TREE, h])
    say(out)
    assert rc == 0, "answers found in the handout:\n" + out[-3000:]
    rc, out = sh(["bash", "tests/classroom/handout.sh"], env=dict(os.environ, KEEP="03", NO_PAGES="1"))
    keep = os.path.join(WORK, "handout-keep")
    shutil.rmtree(keep, ignore_errors=True)
    os.makedirs(keep)
    sh(["tar", "-C", keep, "-xzf", "handout.tar.gz"])
    rc, out = sh(["bash", "tests/classroom/leaks.sh", TREE, glob.glob(os.path.join(keep, "*"))[0]])
    assert rc == 1, "leaks.sh finds nothing in a handout with KEEP=03: it cannot fail"


def handout(say):
    rc, out = sh(["bash", "tests/classroom/handout.sh"])
    say(out)
    assert rc == 0, out
    t = os.path.join(WORK, "handout-test")
    shutil.rmtree(t, ignore_errors=True)
    os.makedirs(t)
    sh(["tar", "-C", t, "-xzf", "handout.tar.gz"])
    return glob.glob(os.path.join(t, "*"))[0]


@pytest.mark.full
@no_handout
def test_handout_host_tier(say):
    """The handout's own make test (its host tier) passes."""
    h = handout(say)
    rc, out = sh(["bash", "tests/run.sh", "--host"], cwd=h, timeout=3600)
    say(out)
    assert rc == 0, out[-4000:]


# ----------------------------------------------------- on a GPU (full tier)

gpu_only = pytest.mark.skipif(not GPU, reason="no NVIDIA GPU here")


@pytest.mark.full
@gpu_only
@no_handout
@ch_param
def test_lesson_passes_check(ch, say):
    rc, out = sh(["python3", "tests/classroom/check.py", ch[:2]], env=dict(os.environ, DIR=ch), timeout=3600)
    say(out)
    assert rc == 0, out[-4000:]


@pytest.mark.full
@gpu_only
@ch_param
def test_starter_fails_check_gpu(ch, say):
    """make exercise-NN builds the starter, and make check-NN fails it on the GPU."""
    n = ch[:2]
    rc, out = sh(["bash", "tests/classroom/exercise.sh", n], env=dict(os.environ, FRESH="1"), timeout=3600)
    say(out)
    assert rc == 0, out[-3000:]
    rc, out = sh(["python3", "tests/classroom/check.py", n], timeout=3600)
    say(out)
    assert rc == 1, f"check-{n} on the untouched starter: exit {rc} (wants 1)"


@pytest.mark.full
@gpu_only
@no_handout
@pytest.mark.parametrize("name", WRONG)
def test_wrong_solution_gpu(name, say):
    """On a GPU make check-NN fails every wrong solution (exit 1), in
    whichever copy it is; an "expect: gpu" one through the GPU part, its PTX
    rows passing; and the GPU part fails an "expect: ptx" one too, unless
    its header says why only the PTX part can ("# gpu: passes")."""
    expect, passes = wrong_header(name)
    d = wrong_copy(name, "gpu")
    rc, out = sh(["python3", "tests/classroom/check.py", name[:2]], env=dict(os.environ, DIR=d), timeout=3600)
    say(out)
    rows = failing_rows(out)
    gpu = [l for l in out.split("the program (on", 1)[-1].splitlines() if re.match(r"^\s+\S.*\bFAIL\b", l)]
    assert rc == 1, f"exit {rc} (wants 1)"
    assert expect != "gpu" or not rows, f"PTX rows failing: {rows}"
    assert gpu or passes, "the GPU part passes it, and its header does not say so"


@pytest.mark.full
@gpu_only
@no_handout
def test_grade_hostile_runtime_gpu(say):
    """make grade-04 on one GPU of a class of ten correct students and the
    hostile-runtime students (tests/classroom/hostile_runtime.py: sleeps,
    spins, fork bombs, a full disk, /tmp and memory, a search of the file
    system, kill -9 -1, detached processes on the GPU, exit(0)), within
    HOSTILE_LIMIT seconds: every correct student with full marks, each
    hostile one with 0 and a reason or full marks (its honest score, where
    the jail contained the attack); and nothing left behind: no process of
    a student's uid, no GPU memory in use, no copy in the grader's folder."""
    import hostile_runtime
    HOSTILE_LIMIT = 300
    subs = os.path.join(WORK, "hostile-runtime-04")
    out = subs + "-grades-04"
    work = os.path.join(WORK, "hostile-runtime-work")
    for d in (out, work):
        shutil.rmtree(d, ignore_errors=True)
    hostile_runtime.make(subs)
    t0 = time.monotonic()
    rc, o = sh(["python3", "tests/classroom/grade.py", "04", "--submissions", subs, "--out", out, "--gpus", "0",
                "--work", work], timeout=HOSTILE_LIMIT + 300)
    took = time.monotonic() - t0
    say(o)
    assert rc == 0, o[-3000:]
    rows = gradebook(os.path.join(out, "grades-04.csv"))
    bad = []
    for r in rows:
        say(f"{r['student']:<12} {r['exercise']} {r['points']}/{r['max']} {r['reason']}")
        full = r["points"] == r["max"] and not r["reason"]
        if r["student"].startswith("correct") and not full:
            bad.append(f"{r['student']} {r['exercise']}: {r['points']} ({r['reason']})")
        if not r["student"].startswith("correct") and not full and (r["points"] != "0" or not r["reason"]):
            bad.append(f"{r['student']} {r['exercise']}: {r['points']} without a reason")
    assert not bad, bad
    assert took <= HOSTILE_LIMIT, f"graded in {took:.0f} s, more than {HOSTILE_LIMIT} s"
    left = sh(["bash", "-c", "ps -eo uid=,comm= | awk '$1 >= 1000000000'"])[1].strip()
    assert not left, f"processes of students' uids left: {left}"
    gpu_apps = sh(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader"])[1].strip()
    assert not gpu_apps, f"GPU memory still held: {gpu_apps}"
    copies = os.path.join(work, "s")
    assert not os.path.isdir(copies) or not os.listdir(copies), os.listdir(copies)


@pytest.mark.full
@gpu_only
@no_handout
def test_grade_library_class_gpu(say):
    """make grade-02 on the GPU, its library as a class (the lesson, the
    starter, every wrong solution; tests/classroom/library_class.py): the
    lesson earns every point, the starter none, and each wrong solution
    none for its exercise, the verdict being the lesson's program's on
    each run's dumped outputs. (tests/grading_bench.sh does this for every
    chapter and times it.)"""
    subs = os.path.join(WORK, "library-02")
    out = subs + "-grades-02"
    shutil.rmtree(out, ignore_errors=True)
    rc, o = sh(["python3", "tests/classroom/library_class.py", "02", subs])
    assert rc == 0, o
    rc, o = sh(["python3", "tests/classroom/grade.py", "02", "--submissions", subs, "--out", out], timeout=3600)
    say(o)
    assert rc == 0, o[-3000:]
    rc, o = sh(["python3", "tests/classroom/library_class.py", "02", subs, "--check", os.path.join(out, "grades-02.csv")])
    say(o)
    assert rc == 0, o
