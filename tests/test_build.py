"""The builds, first of all (pytest collects this file first, so each
chapter's group starts with its build and the durations say what it cost):
every chapter with warnings as errors, the planted-fault kernels, and a
planted wrong wgmma wait count that must stop the build."""

import os
import shutil

import pytest

from conftest import HANDOUT, TREE, WORK, build_chapter, build_planted, per_chapter, sh

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


def test_planted_faults_build(say):
    rc, out = build_planted()
    say(out)
    assert rc == 0 and "warning" not in out.lower(), out[-3000:]


@pytest.mark.skipif(HANDOUT, reason="a handout: the chapters' kernels are the student's")
def test_wrong_wgmma_wait_fails_the_build(say):
    """A wgmma_wait(1) where wgmma_wait(0) belongs (one group left in flight
    while its stage is released): the build is otherwise clean, ptxas adds
    the wait itself (info C7517), and a WERROR=1 build must stop on it,
    naming the cause."""
    d = os.path.join(WORK, "planted-wait")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for e in ["common", "01_naive"]:
        os.symlink(os.path.join(TREE, e), os.path.join(d, e))
    shutil.copytree(os.path.join(TREE, "02_double_buffer"), os.path.join(d, "02_double_buffer"),
                    ignore=shutil.ignore_patterns("build", "run"))
    k = os.path.join(d, "02_double_buffer", "kernel_tc.cu")
    s = open(k).read()
    assert "wgmma_wait(0); /* the tensor cores are done reading stage s */" in s
    open(k, "w").write(s.replace("wgmma_wait(0); /* the tensor cores are done reading stage s */",
                                 "wgmma_wait(1); /* planted: one group still in flight */"))
    rc, out = sh(["make", "--no-print-directory", "-C", "02_double_buffer", "WERROR=1", "ARCH=sm_90a",
                  "build/kernel_tc.o"], cwd=d)
    say(out)
    assert rc != 0, "the build with a wrong wait count passed"
    assert "(C7517)" in out and "kernel_tc.cu: error: ptxas had to add a wgmma wait" in out, out[-2000:]
