#!/usr/bin/env python3
"""The library of wrong solutions as a class, for make grade-NN.

    python3 tests/classroom/library_class.py NN DIR           write the class
    python3 tests/classroom/library_class.py NN DIR --check GRADEBOOK

DIR/lesson holds the lesson's regions, DIR/starter the untouched starter,
and DIR/<patch> the lesson with one wrong solution of tests/classroom/wrong/
applied (its exercise, in whichever copy of it the patch changes). --check
reads the gradebook make grade-NN wrote for it and exits 1 unless the
lesson earned every point (or, without a GPU, every PTX row passed), the
starter none, and each wrong solution none for its exercise, with the PTX
row its header expects ("expect: ptx": FAIL; "expect: gpu": ok, then a
GPU failure); it prints one line per folder.
"""

import csv
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hostile_class  # noqa: E402
import settings  # noqa: E402


def patches(n):
    return sorted(glob.glob(os.path.join(HERE, "wrong", f"{n}.*.patch")))


def header(p):
    t = open(p).read()
    e = re.search(r"^# expect: *(\w+)", t, re.M)
    return e.group(1) if e else None, re.search(r"^# gpu: passes", t, re.M) is not None


def make(n, out):
    ch = settings.chapter_of(n)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    hostile_class.copy_chapter(ch, os.path.join(out, "lesson", ch))
    d = os.path.join(out, "starter", ch)
    hostile_class.copy_chapter(ch, d)
    hostile_class.strip(ch, d, n)
    for p in patches(n):
        name = os.path.basename(p)[:-6]
        hostile_class.copy_chapter(ch, os.path.join(out, name, ch))
        subprocess.run(["patch", "-d", os.path.join(out, name), "-p1", "--quiet"], stdin=open(p), check=True)
    print(f"{out}: lesson, starter and {len(patches(n))} wrong solutions of chapter {n}")


def check(n, gradebook):
    rows = {}
    for r in csv.DictReader(open(gradebook, encoding="utf-8")):
        rows.setdefault(r["student"], {})[r["exercise"]] = r
    gpu = any(r["correct"] in ("yes", "no") for s in rows.values() for r in s.values())
    bad = 0

    def say(ok, who, what):
        nonlocal bad
        bad += not ok
        print(f"{'ok  ' if ok else 'BAD '} {who}: {what}")
    les = rows.get("lesson", {})
    full = all(r["points"] == r["max"] for r in les.values()) if gpu else all(r["ptx"] in ("ok", "gpu-only") for r in les.values())
    say(bool(les) and full, "lesson", ", ".join(f"{e} {r['points']}/{r['max']}" for e, r in sorted(les.items())))
    st = rows.get("starter", {})
    say(bool(st) and all(r["points"] == "0" for r in st.values()), "starter",
        ", ".join(f"{e} {r['points']}" for e, r in sorted(st.items())))
    for p in patches(n):
        name = os.path.basename(p)[:-6]
        ex = name[:4]
        expect, passes = header(p)
        r = rows.get(name, {}).get(ex)
        if r is None:
            say(False, name, "no row")
            continue
        if expect == "ptx":
            ok = r["ptx"] == "FAIL" and r["points"] == "0"
            if gpu and not passes:  # and the GPU part fails it as well
                ok = ok and (r["correct"] == "no" or r["racecheck"] == "FAIL")
        else:
            ok = r["ptx"] in ("ok", "gpu-only") and (r["points"] == "0" if gpu else r["points"] == "pending")
            if gpu:
                ok = ok and (r["correct"] == "no" or r["racecheck"] == "FAIL")
        say(ok, name, f"{ex}: ptx {r['ptx']}, correct {r['correct']}, racecheck {r['racecheck']}, "
                      f"{r['points']} points ({r['reason'] or 'no reason'}); expect {expect}{', gpu: passes' if passes else ''}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) == 3:
        make(sys.argv[1], sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[3] == "--check":
        sys.exit(check(sys.argv[1], sys.argv[4]))
    else:
        sys.exit(__doc__)
