"""The test suite's shared parts (pytest; tests/run.sh starts it).

Everything is built and run in a copy of the working tree, tests/build/tree,
so `./run`, the chapters' own builds and docs/html stay as the user left
them (the end of the run checks that they did). The tree's builds go through
tests/nvcc_cache.py: a compile that an earlier test made is not made again.

Tiers are markers: host (no GPU), gpu (the quick GPU tier: make test on a
machine with a GPU), full (make test-gpu). Each test prints one line when it
ends (ok/FAIL/skip, its seconds, its name); the run ends with the ten
slowest and "N passed, N failed, N skipped".
"""

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.path.join(ROOT, "tests", "build")
TREE = os.path.join(WORK, "tree")
LOGS = os.path.join(WORK, "logs")
CACHE = os.path.join(WORK, "nvcc-cache")
sys.path.insert(0, os.path.join(ROOT, "tests", "classroom"))
sys.path.insert(0, os.path.join(ROOT, "tests"))

import settings  # noqa: E402
import check  # noqa: E402
from check import have_gpu  # noqa: E402
from nvcc_cache import real_nvcc  # noqa: E402

CHAPTERS = [c for c in settings.chapters(ROOT)
            if not os.environ.get("CHAPTERS") or c in os.environ["CHAPTERS"].split()]


def per_chapter(pairs=None, ids=None):
    """Parameters of a test made per chapter: each in its chapter's xdist
    group, so that the tests of one chapter run on one worker, one after
    the other, and no worker waits for another's build of the chapter.
    pairs: (chapter, value) tuples; None: the chapters alone."""
    if pairs is None:
        return [pytest.param(c, marks=pytest.mark.xdist_group(c), id=c) for c in CHAPTERS]
    return [pytest.param(c, v, marks=pytest.mark.xdist_group(c), id=f"{c}-{ids(v) if ids else v}") for c, v in pairs]
HANDOUT = os.path.isfile(os.path.join(ROOT, "HANDOUT"))


GPU = have_gpu()  # none where CUDA_VISIBLE_DEVICES is set and empty, as make check-NN sees it


# ------------------------------------------------------- the tree and state

def user_state():
    """Where ./run points, and each chapter's program and build folder, the
    planted-fault build and docs/html (names, sizes, times): what the user built."""
    out = []
    run = os.path.join(ROOT, "run")
    out.append("run -> " + (os.readlink(run) if os.path.islink(run) else "(none)"))
    paths = [os.path.join(ROOT, c, x) for c in settings.chapters(ROOT) for x in ("run", "build")]
    paths += [os.path.join(ROOT, "tests", "gpu", x) for x in ("run", "build")] + [os.path.join(ROOT, "docs", "html")]
    for p in paths:
        if os.path.isdir(p) and not os.path.islink(p):
            for d, dirs, files in os.walk(p):
                for f in sorted(files):
                    q = os.path.join(d, f)
                    st = os.lstat(q)
                    out.append(f"{os.path.relpath(q, ROOT)} {st.st_size} {st.st_mtime_ns}")
        elif os.path.lexists(p):
            st = os.lstat(p)
            out.append(f"{os.path.relpath(p, ROOT)} {st.st_size} {st.st_mtime_ns}")
    return "\n".join(sorted(out))


def make_tree():
    """A copy of the working tree (uncommitted changes included) without build outputs."""
    shutil.rmtree(TREE, ignore_errors=True)
    subprocess.run(["bash", "-c", '. tests/lib.sh && copy_repo "$1"', "copy_repo", TREE], cwd=ROOT,
                   env=dict(os.environ, ROOT=ROOT), check=True)


def test_env():
    """The environment of every test: builds through the cache."""
    env = dict(os.environ)
    real = real_nvcc()
    env.update(NVCC=os.path.join(TREE, "tests", "nvcc_cache.py"), TUTORIAL_NVCC_CACHE=CACHE,
               TUTORIAL_NVCC_REAL=real,
               CUDA_HOME=check.cuda_home(real), ROOT=TREE)
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    env.pop("MAKELEVEL", None)
    return env


def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # xdist workers: the controller made the tree
    os.makedirs(LOGS, exist_ok=True)
    for f in os.listdir(LOGS):
        os.unlink(os.path.join(LOGS, f))
    shutil.rmtree(os.path.join(WORK, "built"), ignore_errors=True)  # what the last run built is gone with its tree
    with open(os.path.join(WORK, "user-state.before"), "w") as f:
        f.write(user_state())
    sys.stdout.write("copying the working tree to tests/build/tree (the tests build and run there)\n")
    make_tree()
    os.makedirs(CACHE, exist_ok=True)
    open(os.path.join(CACHE, "calls.log"), "w").close()
    config._tutorial_t0 = time.monotonic()


os.environ.update(test_env())


# ------------------------------------------------------------ helpers

def log_path(name):
    return os.path.join(LOGS, re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:150] + ".log")


def sh(cmd, cwd=TREE, timeout=1800, env=None, input=None):
    """Run cmd (a list, or a string for bash) in the tree; (exit status, output)."""
    try:
        p = subprocess.run(cmd if isinstance(cmd, list) else ["bash", "-c", cmd], cwd=cwd, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, input=input,
                           stdin=None if input is not None else subprocess.DEVNULL)
        return p.returncode, p.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        return None, (e.output or b"").decode("utf-8", "replace") + f"\n(killed after {timeout} s)"


def jobs():
    return max(1, (os.cpu_count() or 2) // 4)


class Built:
    """One build in the tree, made once for the whole run (whichever test
    asks first makes it, under a lock; the rest read its result)."""

    @staticmethod
    def get(key, cmd, cwd=TREE, timeout=1800):
        d = os.path.join(WORK, "built")
        os.makedirs(d, exist_ok=True)
        k = re.sub(r"[^A-Za-z0-9_.=-]", "_", key)
        with open(os.path.join(d, k + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            res = os.path.join(d, k + ".json")
            if os.path.exists(res):
                r = json.load(open(res))
                return r["rc"], r["out"]
            rc, out = sh(cmd, cwd=cwd, timeout=timeout)
            json.dump({"rc": rc, "out": out}, open(res, "w"))
            return rc, out


def ptx_files(ch):
    """The PTX the tests read: kernel.cu's and kernel_tc.cu's (PTX_MUST), a
    step's own file's (PTX_MUST_STEP), and that of every file holding a
    region (make check-NN's PTX part)."""
    s = chapter_settings(ch)
    files = {"kernel"} | {e.split()[1] for e in s["CHECK_FILES"]} | {r.split(":")[0] for r in s["PTX_MUST_STEP"]}
    if os.path.exists(os.path.join(TREE, ch, "kernel_tc.cu")):
        files.add("kernel_tc")
    return " ".join(sorted(files))


def build_chapter(ch):
    """The chapter's default build with warnings as errors, and its PTX."""
    return Built.get(f"chapter-{ch}", f"make --no-print-directory -j{jobs()} -C {ch} WERROR=1 && "
                                      f"make --no-print-directory -j{jobs()} -C {ch} WERROR=1 ptx "
                                      f"PTX_FILES='{ptx_files(ch)}'")


def build_planted():
    """tests/gpu: the planted faults (and the race racecheck must find)."""
    return Built.get("tests-gpu", f"make --no-print-directory -j{jobs()} -C tests/gpu WERROR=1")


def built(ch):
    rc, out = build_chapter(ch)
    assert rc == 0, f"{ch} does not build:\n{out[-3000:]}"
    return os.path.join(TREE, ch, "run")


def chapter_settings(ch):
    return settings.load(ch, TREE)


@pytest.fixture
def say(request):
    """Lines for the test's log (tests/build/logs/<test>.log)."""
    lines = []
    yield lines.append
    with open(log_path(request.node.nodeid), "w") as f:
        f.write("\n".join(str(x) for x in lines) + "\n")


# ------------------------------------------------------------ reporting

_done = {"no_gpu": 0}  # GPU tests skipped for want of a GPU, counted in one line


def pytest_report_teststatus(report, config):
    """No dots: each test's own line (below) says how it went."""
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        return report.outcome, "", report.outcome.upper()
    return None


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        word = {"passed": "ok", "failed": "FAIL", "skipped": "skip"}[report.outcome]
        t = getattr(report, "duration", 0)
        extra = ""
        if report.outcome == "skipped" and isinstance(report.longrepr, tuple):
            reason = report.longrepr[2].replace("Skipped: ", "")
            if reason.startswith("no NVIDIA GPU here"):  # one line for them all, at the end
                _done["no_gpu"] += 1
                return
            extra = f"  ({reason})"
        name = re.sub(r"@[^@\]]*$", "", report.nodeid.split("::", 1)[-1])  # less xdist's group
        sys.stdout.write(f"{word:<5}{t:7.1f} s  {name}{extra}\n")
        sys.stdout.flush()


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    """The last check of every run: the user's own builds are as they were."""
    if hasattr(session.config, "workerinput"):
        return
    before = open(os.path.join(WORK, "user-state.before")).read()
    session.config._tutorial_user_ok = user_state() == before
    if not session.config._tutorial_user_ok:
        session.exitstatus = 1


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if hasattr(config, "workerinput"):
        return
    tr = terminalreporter
    calls = os.path.join(CACHE, "calls.log")
    if os.path.exists(calls):
        lines = open(calls).read().splitlines()
        runs = [l.split("\t") for l in lines if l.startswith("run\t")]
        secs = sum(float(r[1]) for r in runs)
        repeats = len(runs) - len({(r[2], r[3]) for r in runs})
        tr.write_line(f"nvcc: {len(lines)} calls in the tree's builds: {len(runs)} compiled ({secs:.0f} s), "
                      f"{len(lines) - len(runs)} from the cache (tests/nvcc_cache.py); "
                      f"{repeats} compile{'s' if repeats != 1 else ''} repeated an earlier one")
    if _done["no_gpu"]:
        tr.write_line(f"skip  {_done['no_gpu']} GPU tests: no NVIDIA GPU here; make test-gpu runs them on a machine with one")
    ok = getattr(config, "_tutorial_user_ok", True)
    tr.write_line(("ok    " if ok else "FAIL  ") + "the user's ./run, chapter builds and docs are untouched")
    st = tr.stats
    passed = len(st.get("passed", [])) + ok
    failed = len(st.get("failed", [])) + len(st.get("error", [])) + (not ok)
    skipped = len(st.get("skipped", []))
    el = time.monotonic() - getattr(config, "_tutorial_t0", time.monotonic())
    tr.write_line(f"({int(el // 60)}:{int(el % 60):02d} in all)")
    tr.write_line(f"{passed} passed, {failed} failed, {skipped} skipped")
