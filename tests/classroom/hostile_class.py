#!/usr/bin/env python3
"""tests/classroom/hostile_class.py NN DIR: a class of chapter NN written by
students who want points without the work, for make grade-NN.

Each folder of DIR is one case (its name is part of the case); the
fixture tests/classroom/fixtures/hostile-NN.csv holds the rows make grade-NN
must write for them without a GPU. Chapter 02's case list (a chapter whose
regions stand in kernel.cu and kernel_tc.cu):

  lesson                the lesson's regions: earns the PTX part
  starter               the untouched starter
  wrong tc              a wrong answer in the tensor-core copy (02.2 released before the wgmma wait)
  cheat, main.c         the starter with a main.c that prints PASSED: main.c is never read
  o'brien "hook"        the starter with an exit hook (a constructor that calls _exit(0)) outside the regions
  new<LF>lesson,02.1,ok a name holding a newline and a forged CSV row: the lesson
  José                  a name that is not ASCII: the lesson
  .hidden               a leading dot: the lesson
  feedback-02           the grader's old folder name: the lesson
  \\056\\056 octal        a name of backslash escapes: the lesson
  whole tree            the exercises/02/ tree make exercise-02 writes, links included: the lesson
  symlink               kernel.cu is a link to /etc/passwd
  fifo                  kernel.cu is a named pipe
  huge                  kernel.cu of 2 MB
  include all           kernel.cu is one #include of the repository's own kernel.cu
  directive             region 02.1 holds #include "/dev/zero", 02.2's copy in kernel_tc.cu a #define
  escape                region 02.2 closes the function and defines a constructor after it, 02.1 an asm
  repeated              a region of 02.2 written twice
  swallow               02.1 ends in an if (0) that would take in the lesson's next line, 02.2 a name not ASCII
  =HYPERLINK(...)       a name a spreadsheet would run as a formula: the lesson
  missing tc            no kernel_tc.cu
  notes.txt             a file, not a folder
  link                  a symbolic link to the lesson's folder
"""

import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import settings  # noqa: E402

ROOT = settings.ROOT


def copy_chapter(ch, dest):
    shutil.copytree(os.path.join(ROOT, ch), dest, ignore=shutil.ignore_patterns("build", "run"))


def strip(ch, d, n):
    """The chapter's own regions to their starter (as make exercise-NN)."""
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if f.endswith((".cu", ".cuh", ".c", ".h")) and "// ---- exercise " in open(p).read():
            out = subprocess.run(["awk", "-v", "mode=strip", "-v", f"only={n}", "-f",
                                  os.path.join(ROOT, "common", "regions.awk"), os.path.join(ROOT, ch, f)],
                                 stdout=subprocess.PIPE, check=True).stdout
            open(p, "wb").write(out)


def edit(path, old, new):
    s = open(path).read()
    assert old in s, (path, old)
    open(path, "w").write(s.replace(old, new, 1))


def make(n, out):
    ch = settings.chapter_of(n)
    if n != "02":
        raise SystemExit("hostile_class.py: the case list is chapter 02's")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)

    def student(name, kind="lesson"):
        d = os.path.join(out, name, ch)
        copy_chapter(ch, d)
        if kind == "starter":
            strip(ch, d, n)
        return d

    student("lesson")
    student("starter", "starter")
    d = student("wrong tc")
    subprocess.run(["patch", "-d", os.path.join(out, "wrong tc"), "-p1", "--quiet"], check=True,
                   stdin=open(os.path.join(HERE, "wrong", "02.2-tc-release-before-wait.patch")))
    d = student("cheat, main.c", "starter")
    open(os.path.join(d, "main.c"), "w").write('#include <stdio.h>\nint main(void) { puts("PASSED"); return 0; }\n')
    d = student("o'brien \"hook\"", "starter")
    s = open(os.path.join(d, "kernel.cu")).read()
    open(os.path.join(d, "kernel.cu"), "w").write(
        "#include <unistd.h>\n__attribute__((constructor)) static void hook(void) { _exit(0); }\n" + s)
    for name in ["new\nlesson,02.1,ok,yes,ok,3,3,,,", "José", ".hidden", "feedback-02", "\\056\\056 octal"]:
        student(name)
    # the tree make exercise-02 writes: the chapter, and links to the rest
    t = os.path.join(out, "whole tree", "exercises", n)
    os.makedirs(t)
    for e in ["common", "tests"] + [c for c in settings.chapters() if c != ch]:
        os.symlink(f"../../{e}", os.path.join(t, e))
    copy_chapter(ch, os.path.join(t, ch))
    d = student("symlink")
    os.unlink(os.path.join(d, "kernel.cu"))
    os.symlink("/etc/passwd", os.path.join(d, "kernel.cu"))
    d = student("fifo")
    os.unlink(os.path.join(d, "kernel.cu"))
    os.mkfifo(os.path.join(d, "kernel.cu"))
    d = student("huge")
    s = open(os.path.join(d, "kernel.cu")).read()
    open(os.path.join(d, "kernel.cu"), "w").write(s + ("/" + "*" * 1022 + "/\n") * 2048)
    d = student("include all")
    open(os.path.join(d, "kernel.cu"), "w").write(f'#include "{os.path.join(ROOT, ch, "kernel.cu")}"\n')
    d = student("directive")  # in both exercises, so nothing of it is compiled
    edit(os.path.join(d, "kernel.cu"), "            const int s = fetched % STAGES;\n",
         '            const int s = fetched % STAGES;\n#include "/dev/zero"\n')
    edit(os.path.join(d, "kernel_tc.cu"), "        pipe.consumer_release(); /* this thread is done with stage s */\n",
         "        pipe.consumer_release();\n        #define wgmma_wait(n) ((void)0)\n")
    d = student("escape")
    edit(os.path.join(d, "kernel.cu"), "        pipe.consumer_release(); /* this thread is done reading stage s */\n",
         "        pipe.consumer_release();\n    }\n}\n__attribute__((constructor)) static void hook(void) { }\n"
         "static void rest(int tiles) {\n    for (int kt = 0; kt < tiles; ++kt) {\n")
    edit(os.path.join(d, "kernel.cu"), "            pipe.producer_commit();\n",
         '            pipe.producer_commit(); asm volatile("trap;");\n')
    d = student("repeated")
    s = open(os.path.join(d, "kernel.cu")).read()
    a = s.index("        // ---- exercise 02.2")
    b = s.index("// ---- end of exercise 02.2 ----", a) + len("// ---- end of exercise 02.2 ----\n")
    open(os.path.join(d, "kernel.cu"), "w").write(s[:b] + s[a:b] + s[b:])
    d = student("swallow")  # both refused, so nothing of it is compiled
    edit(os.path.join(d, "kernel.cu"), "            pipe.producer_commit();\n",
         "            pipe.producer_commit();\n            if (0)\n")
    edit(os.path.join(d, "kernel_tc.cu"), "        pipe.consumer_release(); /* this thread is done with stage s */\n",
         "        pipe.consumer_release(); int caf\u00e9 = 0; (void)caf\u00e9;\n")
    student('=HYPERLINK("evil","click")')
    d = student("missing tc")
    os.unlink(os.path.join(d, "kernel_tc.cu"))
    open(os.path.join(out, "notes.txt"), "w").write("not a student\n")
    os.symlink("lesson", os.path.join(out, "link"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: hostile_class.py NN DIR")
    make(sys.argv[1], sys.argv[2])
