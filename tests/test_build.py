"""The builds, first of all (pytest collects this file first, so each
chapter's group starts with its build and the durations say what it cost):
every chapter with warnings as errors, the planted-fault kernels, and a
planted wrong wgmma wait count that must stop the build."""

import os
import re
import shutil

import pytest

from conftest import CHAPTERS, HANDOUT, TREE, WORK, build_chapter, build_planted, jobs, per_chapter, sh

pytestmark = pytest.mark.host
ch_param = pytest.mark.parametrize("ch", per_chapter())


@ch_param
def test_builds_warning_free(ch, say):
    """The chapter and its PTX build with warnings as errors, and print no
    warning (nvcc's -Werror does not cover every tool in the chain). A
    WERROR=1 build also stops on a register spilled to local memory
    (ptxas -warn-spills) and on a wgmma wait that ptxas had to add."""
    rc, out = build_chapter(ch)
    say(out)
    assert rc == 0, out[-3000:]
    if not HANDOUT:
        assert "warning" not in out.lower(), "the build printed a warning"


def tc_objects(ch):
    """The chapter's own tensor-core objects: kernel_tc and its steps (TC_STEPS)."""
    steps = sh(["make", "-s", "--no-print-directory", "-C", ch, "print-STEP_CU"])[1].split()
    return ["kernel_tc"] + [s[:-3] for s in steps]


MMA_PTX = [r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32", r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16",
           r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16"]


@pytest.mark.parametrize("ch,arch", per_chapter(
    [(c, "sm_80" if c < "05" else "sm_120a") for c in CHAPTERS if os.path.exists(os.path.join(TREE, c, "kernel_tc.cu"))]))
def test_mma_sync_path_builds(ch, arch, say):
    """The tensor-core line where wgmma does not exist: the chapter's own
    tensor-core files (kernel_tc.cu and its steps) for an Ampere GPU (sm_80,
    no setmaxnreg: chapters 01-04) or, for the chapters that need Hopper's
    clusters, a consumer Blackwell one (sm_120a): their PTX warning-free,
    ptxas on it without a spill, and in it mma.sync fed by ldmatrix, no
    wgmma (and no setmaxnreg on sm_80). make test-gpu builds whole chapters
    for sm_80, 86, 89, 100a and 120a (test_builds_for_other_gpus)."""
    objs = tc_objects(ch)
    d = f"build/mma-{arch}"
    rc, out = sh(["make", "--no-print-directory", f"-j{jobs()}", "-C", ch, f"ARCH={arch}", "WERROR=1", f"BUILD={d}",
                  "PTX_FILES=" + " ".join(objs), "ptx"])
    ptxas = os.path.join(os.path.dirname(os.environ["TUTORIAL_NVCC_REAL"]), "ptxas")
    for o in objs if rc == 0 else []:
        r, o2 = sh([ptxas, f"-arch={arch}", "-warn-spills", "-Werror", os.path.join(TREE, ch, d, o + ".ptx"), "-o",
                    "/dev/null"])
        rc, out = rc or r, out + o2
    say(out)
    assert rc == 0 and "warning" not in out.lower(), out[-3000:]
    bad = []
    for o in objs:
        ptx = open(os.path.join(TREE, ch, d, o + ".ptx")).read()
        for rx in MMA_PTX:
            if not re.search(rx, ptx):
                bad.append(f"{o}: no {rx}")
        for rx in ["wgmma"] + (["setmaxnreg"] if arch == "sm_80" else []):
            if re.search(rx, ptx):
                bad.append(f"{o}: {rx} in an {arch} build")
    assert not bad, bad


def test_planted_faults_build(say):
    rc, out = build_planted()
    say(out)
    assert rc == 0 and "warning" not in out.lower(), out[-3000:]


@pytest.mark.skipif(HANDOUT, reason="a handout: the chapters' kernels are the student's")
def test_wrong_wgmma_wait_fails_the_build(say):
    """A wgmma_wait(1) in mma_wait() where wgmma_wait(0) belongs (one group
    left in flight while its stage is released): the build is otherwise
    clean, ptxas adds the wait itself (info C7517), and a WERROR=1 build of
    chapter 02's kernel must stop on it, naming the cause."""
    d = os.path.join(WORK, "planted-wait")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    os.symlink(os.path.join(TREE, "common"), os.path.join(d, "common"))
    for e in ["01_naive", "02_double_buffer"]:
        shutil.copytree(os.path.join(TREE, e), os.path.join(d, e), ignore=shutil.ignore_patterns("build", "run"))
    k = os.path.join(d, "01_naive", "blocked_tc.cuh")
    s = open(k).read()
    assert "    wgmma_wait(0);\n    wgmma_touch(acc, TC_ACC);" in s
    open(k, "w").write(s.replace("    wgmma_wait(0);\n    wgmma_touch(acc, TC_ACC);",
                                 "    wgmma_wait(1); /* planted: one group still in flight */\n    wgmma_touch(acc, TC_ACC);"))
    rc, out = sh(["make", "--no-print-directory", "-C", "02_double_buffer", "WERROR=1", "ARCH=sm_90a",
                  "build/kernel_tc.o"], cwd=d)
    say(out)
    assert rc != 0, "the build with a wrong wait count passed"
    assert "(C7517)" in out and "kernel_tc.cu: error: ptxas had to add a wgmma wait" in out, out[-2000:]
