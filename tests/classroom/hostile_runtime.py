#!/usr/bin/env python3
"""tests/classroom/hostile_runtime.py DIR [CORRECT]: a chapter-04 class whose
students put slow or hostile host code in region 04.3 (the launcher's
reset, host code that runs on the grading machine), beside CORRECT
(default 10) students with the lesson's answers, for make grade-04.

Every hostile region is legal by the grader's lexical rule (regions.py):
it only calls what the file already declares (system(), exit(), malloc()),
so it is spliced in and runs; what stops it is the jail, the time budget
and the room (sandbox.py, check.Budget). Each keeps the lesson's reset
after its attack, so where the attack is contained its honest score is
full marks. The cases (the folder's name says which):

  sleep        sleeps an hour in the first launch
  spin         loops forever in the host code
  fork bomb    a shell function that starts two of itself, without end
  fill disk    writes 20 GiB into its copy
  fill tmp     writes 8 GiB into /tmp
  fill memory  allocates and touches 64 GiB of host memory
  search       lists the whole file system and copies /etc/shadow
  kill all     kill -9 -1: every process it may signal
  daemon       leaves a detached copy of its program running a large GEMM
               (a GPU context and its memory), and a sleeping shell
  exit         exit(0) in the launcher: no results, status 0
"""

import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import settings  # noqa: E402

ROOT = settings.ROOT
CH = "04_persistent"
RESET = "    err = cudaMemsetAsync(tile_counter, 0, sizeof(int), stream);\n"

# Each attack comes before the lesson's reset, in every copy of region 04.3.
ATTACKS = {
    "sleep": 'if (system("sleep 3600")) {}',
    "spin": "for (volatile unsigned long spin = 0;; spin = spin + 1) {}",
    "fork bomb": 'if (system("f() { f | f & }; f")) {}',
    "fill disk": 'if (system("dd if=/dev/zero of=big bs=1M count=20480 2>/dev/null")) {}',
    "fill tmp": 'if (system("dd if=/dev/zero of=/tmp/big bs=1M count=8192 2>/dev/null")) {}',
    "fill memory": "{ const size_t n = (size_t)64 << 30; char *p = (char *)malloc(n); "
                   "if (p) { memset(p, 1, n); free(p); } }",
    "search": 'if (system("find / > found 2>/dev/null; cat /etc/shadow > leak 2>/dev/null")) {}',
    "kill all": 'if (system("kill -9 -1")) {}',
    "daemon": 'if (system("setsid ./run --m 16384 --n 16384 --k 16384 --reps 1000000 >/dev/null 2>&1 & '
              'setsid sh -c \'sleep 3600\' >/dev/null 2>&1 &")) {}',
    "exit": "exit(0);",
}


def copy_chapter(dest):
    shutil.copytree(os.path.join(ROOT, CH), dest, ignore=shutil.ignore_patterns("build", "run"))


def attack(d, code):
    """Put code before the reset in every copy of region 04.3 of the chapter at d."""
    n = 0
    for f in ("kernel.cu", "kernel_tc.cu"):
        p = os.path.join(d, f)
        s = open(p).read()
        assert RESET in s, (p, "the reset")
        n += s.count(RESET)
        open(p, "w").write(s.replace(RESET, "    " + code + "\n" + RESET))
    assert n == 2, f"04.3 has {n} copies of the reset, 2 expected"


def make(out, correct=10):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    for i in range(correct):
        copy_chapter(os.path.join(out, f"correct {i + 1:02d}", CH))
    for name, code in ATTACKS.items():
        d = os.path.join(out, name, CH)
        copy_chapter(d)
        attack(d, code)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: hostile_runtime.py DIR [CORRECT]")
    make(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 10)
