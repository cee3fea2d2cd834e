#!/usr/bin/env python3
"""make grade-NN SUBMISSIONS=DIR: grade a class's chapter NN.

    make grade-03 SUBMISSIONS=DIR [GRADEBOOK=DIR2] [RUBRIC=file] [GPUS="0 1"] [PER_GPU=n] [JOBS=n]
    make grade-03 SUBMISSIONS=DIR SLURM=1      a Slurm job array instead (one GPU per task)

DIR holds one folder per student, each with the chapter's files as `make
exercise-NN` wrote them: DIR/<student>/NN_<name>/, or a whole starter tree
(DIR/<student>/exercises/NN/NN_<name>/), or the files alone in
DIR/<student>/. Any folder name is a student's name, as data.

For each student, only the text between the markers of the chapter's own
exercise regions is taken from the submission (tests/classroom/regions.py
says what a region may hold) and put into a fresh copy of the repository's
own files; nothing else the student sent is read. The copy is checked as
make check-NN does (tests/classroom/check.py): the PTX of every copy of
every region, then on a GPU every kernel that holds one, on both lines.
Each step runs in the student's jail (tests/classroom/sandbox.py), and the
verdict on each run comes from the lesson's own program, which checks the
outputs the student's program wrote (./run --check-dump), never from the
student's program itself.

No student can hold the class up: each step's time limit and each
student's GPU budget come from the lesson's own times for the same steps
on this GPU (check.Budget, measured once per grading run); a student over
them gets 0, with the figures, for what is not judged yet; runs that can
change no exercise's points are not made; PER_GPU students' GPU parts run
at once on each GPU (they verify, they do not time: the speed column says
when it was measured on a shared GPU); a student's copy and /tmp have a
size (sandbox.py).

Writes GRADEBOOK (default DIR-grades-NN beside DIR): grades-NN.csv (written once
every student is done, with Python's csv module) and feedback/<n>-<name>.txt.
Exit 0 when every folder was graded or refused with a reason, 2 on bad usage.
"""

import argparse
import concurrent.futures
import csv
import hashlib
import json
import os
import queue
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402
import regions  # noqa: E402
import sandbox  # noqa: E402
import settings  # noqa: E402

ROOT = settings.ROOT
MAX_FILE = 1 << 20      # bytes of one file the grader reads from a submission
PER_GPU = 4             # students whose GPU parts share one GPU at once (docs/instructor.md: how it was chosen)
COLUMNS = ["student", "exercise", "ptx", "correct", "racecheck", "points", "max", "reason", "speed", "feedback",
           "questions"]


# ----------------------------------------------------------- reading safely

MAX_DUMPS = 64          # files one run may dump (one or two per kernel)
MAX_DUMP = 256 << 20    # bytes of one (the largest output of a graded shape is 4097 x 4095 floats, 64 MiB)


class Refused(Exception):
    pass


def open_under(root_fd, rel):
    """Open the regular file rel under the folder root_fd, following no
    symbolic link on the way; refuse devices, pipes and files over MAX_FILE."""
    parts = rel.split("/")
    fd = os.dup(root_fd)
    try:
        for p in parts[:-1]:
            try:
                st = os.stat(p, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                return None
            if stat.S_ISLNK(st.st_mode):
                raise Refused(f"{rel}: {p} is a symbolic link: refused, never followed")
            if not stat.S_ISDIR(st.st_mode):
                return None
            nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = nfd
        try:
            st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        if stat.S_ISLNK(st.st_mode):
            raise Refused(f"{rel} is a symbolic link: refused, never followed")
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{rel} is not a regular file (a device, a pipe or a folder): refused")
        if st.st_size > MAX_FILE:
            raise Refused(f"{rel} has more than the {MAX_FILE} bytes a file may have: refused")
        ffd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        with os.fdopen(ffd, "rb") as f:
            data = f.read(MAX_FILE + 1)
        if len(data) > MAX_FILE:
            raise Refused(f"{rel} is larger than {MAX_FILE} bytes: refused")
        return data
    finally:
        os.close(fd)


def as_cell(text):
    """A folder name as a gradebook cell: a spreadsheet reads a cell that
    starts with = + - @ (or a tab or CR) as a formula, so it gets a ' first."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def display(name):
    """A folder name as the gradebook writes it: undecodable bytes as \\xNN."""
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def slug(name):
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", display(name)).strip("._") or "student"
    return s[:40]


# ------------------------------------------------------------------ the class

class Student:
    def __init__(self, index, name):
        self.index, self.name = index, name
        self.rows = {}          # exercise -> dict of the gradebook's columns
        self.notes = []         # feedback lines
        self.refused = None     # the reason when the whole folder is refused
        self.reasons = {}       # exercise -> why it scores 0 before any check
        self.copy = None
        self.check = None
        self.times = {}
        self.feedback = f"feedback/{index + 1:03d}-{slug(name)}.txt"


class Grader:
    def __init__(self, n, subs, out, rubric, gpus, jobs, work=None, log=sys.stdout, per_gpu=1):
        self.n, self.ch = n, settings.chapter_of(n)
        self.subs, self.out, self.log = subs, out, log
        self.plan = check.Plan(self.ch)
        self.rubric = {}
        for r in csv.DictReader(l for l in open(rubric) if not l.startswith("#")):
            self.rubric[r["exercise"]] = int(r["points"])
        self.lesson_dir = os.path.join(ROOT, self.ch)
        self.files = check.region_files(self.lesson_dir)  # the lesson's files that hold regions
        self.lesson_regions = check.read_regions(self.lesson_dir, self.files)
        self.ids = self.plan.own({r.ex for rs in self.lesson_regions.values() for r in rs})
        self.gpus = gpus
        self.per_gpu = per_gpu  # students whose GPU parts share one GPU at once
        self.jobs = jobs
        self.budget = None      # check.Budget, from the lesson's times (prepare())
        self.work = work or tempfile.mkdtemp(prefix=f"tutorial-grade-{n}-")
        if not work:
            OWN_WORK.append(self.work)
        os.makedirs(self.work, exist_ok=True)
        os.chmod(self.work, 0o711)
        os.makedirs(os.path.join(self.work, "s"), mode=0o711, exist_ok=True)
        # hidden from every step: the repository (the answers), the submissions,
        # the gradebook, this folder (the template, the lesson, the other copies), $HOME
        self.jail = sandbox.Jail(hide=[ROOT, subs, out, self.work, os.environ.get("HOME")])
        self.arch = subprocess.run(["make", "-s", "--no-print-directory", "-C", self.lesson_dir, "print-ARCH"],
                                   stdout=subprocess.PIPE, text=True).stdout.strip()
        self.ptx_cache = {}
        self.ptx_lock = threading.Lock()
        self.verifier = None
        self.names = None
        self.lesson_ms = {}

    def say(self, text):
        self.log.write(text + "\n")
        self.log.flush()


    # --------------------------------------------------------- the lesson
    def prepare(self):
        """What every student's grading starts from, made once:
        - the template of each student's copy: common/ and the chapters up
          to this one, without pages (this chapter's regions are spliced
          in per student);
        - a compile cache (tests/nvcc_cache.py) filled by building the
          starter (every own region as the starter has it): a student's
          files that are the template's or the starter's (a parent's kernel,
          an exercise left as handed out) are not compiled again. The
          students' builds read it and never write it, and it holds no
          lesson code;
        - on a GPU, the lesson's program: the verifier, and the time each
          kernel is set beside."""
        t = os.path.join(self.work, "template")
        shutil.rmtree(t, ignore_errors=True)
        os.makedirs(t, mode=0o700)
        ign = shutil.ignore_patterns("build", "run", "*.md", "exercises")
        shutil.copytree(os.path.join(ROOT, "common"), os.path.join(t, "common"), ignore=ign)
        for c in settings.chapters():
            if c[:2] <= self.n:
                shutil.copytree(os.path.join(ROOT, c), os.path.join(t, c), ignore=ign)
        self.template = t
        tools = os.path.join(self.work, "tools")
        os.makedirs(tools, mode=0o755, exist_ok=True)
        shutil.copy(os.path.join(ROOT, "tests", "nvcc_cache.py"), tools)
        self.cache = os.path.join(self.work, "nvcc-cache")
        os.makedirs(self.cache, mode=0o755, exist_ok=True)
        real = check.nvcc_path()
        self.cache_env = {"NVCC": os.path.join(tools, "nvcc_cache.py"), "TUTORIAL_NVCC_CACHE": self.cache,
                          "TUTORIAL_NVCC_REAL": real,
                          "CUDA_HOME": check.cuda_home(real)}
        self.jail.ro_binds = [tools, self.cache]
        # the starter, built through the cache
        st = os.path.join(self.work, "starter")
        shutil.rmtree(st, ignore_errors=True)
        shutil.copytree(t, st, symlinks=True)
        for f in self.files:
            path = os.path.join(st, self.ch, f)
            lines = regions.lines_of(open(path, encoding="utf-8").read())
            with open(path, "w", encoding="utf-8") as fh:
                fh.write("\n".join(self.starter_for(f, lines, set(self.ids))))
        env = dict(os.environ, **self.cache_env)
        env.pop("MAKEFLAGS", None)
        code = os.path.join(st, self.ch)
        # every PTX build the PTX part makes (both MMA paths), as it makes them
        cmds = [args + [f"BUILD=build/check/{folder}"] for folder, _, _, args in self.plan.ptx_make_args()]
        if self.gpus:
            for label, knobs, _ in self.plan.builds:
                d = "build/check/build-" + (re.sub(r"[^A-Za-z0-9]+", "_", label) or "default")
                cmds.append([f"BUILD={d}", f"BIN={d}/run"] + knobs)
        with open(os.path.join(self.work, "starter-build.log"), "w") as f:
            for c in cmds:  # a starter may not build (its TODOs): what compiled is cached all the same
                subprocess.run(["make", "--no-print-directory", "-k", f"-j{os.cpu_count() or 2}", "-C", code,
                                f"ARCH={self.arch}"] + c,
                               stdout=f, stderr=subprocess.STDOUT, env=env)
        shutil.rmtree(st, ignore_errors=True)
        for d, dirs, files in os.walk(self.work):  # the cache and the tools: readable, not writable, by the students
            if d.startswith((self.cache, tools)):
                os.chmod(d, 0o755)
                for x in files:
                    os.chmod(os.path.join(d, x), 0o644 if not x.endswith(".py") else 0o755)
        if not self.gpus:
            return
        progs, walls = {}, {}
        for label, knobs, _ in self.plan.builds:  # the lesson's builds, as a student's are made
            d = os.path.join(self.work, "lesson" + ("-" + re.sub(r"[^A-Za-z0-9]+", "_", label) if label else ""))
            os.makedirs(d, mode=0o700, exist_ok=True)
            t0 = time.monotonic()
            with open(os.path.join(self.work, "lesson-build.log"), "a") as f:
                rc = subprocess.run(["make", "--no-print-directory", f"-j{max(1, (os.cpu_count() or 2) // 2)}", "-C",
                                     self.lesson_dir, f"ARCH={self.arch}", f"BUILD={d}", f"BIN={d}/run"] + knobs,
                                    stdout=f, stderr=subprocess.STDOUT).returncode
            walls["build"] = max(walls.get("build", 0.0), time.monotonic() - t0)
            if rc != 0:
                raise SystemExit(f"grade-{self.n}: the lesson does not build ({self.work}/lesson-build.log)")
            progs[label] = os.path.join(d, "run")
        self.verifier = progs[""]
        self.names = check.program_names(self.verifier) if self.plan.gemm else None
        ks = [k for k in self.plan.kernels if self.names is None or k in self.names]
        venv = check.verifier_env({"CUDA_VISIBLE_DEVICES": str(self.gpus[0])})
        p = subprocess.run([self.verifier, "--only", self.plan.only(ks), "--reps", "5", "--warmup", "1", "--csv"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=venv)
        self.lesson_ms = check.csv_times(p.stdout)
        # the lesson's own time for each step a student's GPU part makes, alone on the GPU: the budget
        for label, build, args, _ in self.plan.cases():
            ks = [k for k in self.plan.build_kernels(build) if self.names is None or k in self.names]
            t0 = time.monotonic()
            subprocess.run([progs[build], "--only", self.plan.only(ks)] + args + ["--timeout", "10"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=venv)
            walls[label] = time.monotonic() - t0
        san = check.sanitizer()
        if san:
            ks = [k for k in self.plan.build_kernels("") if self.names is None or k in self.names]
            t0 = time.monotonic()
            subprocess.run([san, "--tool", "racecheck", self.verifier, "--only", self.plan.only(ks)] +
                           self.plan.sanitize_args() + ["--reps", "1", "--warmup", "0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=venv)
            walls["racecheck"] = time.monotonic() - t0
        self.budget = check.Budget(walls, self.per_gpu)
        # host memory of a GPU step: a data limit, where the lesson runs under it
        self.jail.gpu_data = self.jail.probe_gpu_data([self.verifier, "--only", self.plan.only(ks[:1]), "--m", "64",
                                                       "--n", "64", "--k", "64", "--reps", "1", "--warmup", "0"], venv)
        self.say(f"  budget: each run at most {check.Budget.FLOOR:.0f} s + {check.Budget.MULT:.0f} x "
                 f"{self.per_gpu} x the lesson's own; the GPU part at most {self.budget.total:.0f} s per student "
                 f"(the lesson's steps: {sum(v for k, v in walls.items() if k != 'build'):.0f} s); "
                 f"a build at most {self.budget.limit('build', 0):.0f} s")

    # ------------------------------------------------------- one student
    def take(self, st):
        """Read the student's region files (nothing else), then splice their
        regions into the repository's own files; say what was refused. An
        exercise refused anywhere gets the starter's text in every file."""
        path = os.path.join(self.subs, st.name)
        try:
            s0 = os.lstat(path)
        except OSError as e:
            st.refused = f"cannot read the folder ({e.strerror})"
            return
        if stat.S_ISLNK(s0.st_mode):
            st.refused = "a symbolic link, not a folder: refused, never followed"
            return
        if not stat.S_ISDIR(s0.st_mode):
            st.refused = "not a folder: each student's work is a folder"
            return
        texts = {}
        root_fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            code = None
            for cand in (self.ch, f"exercises/{self.n}/{self.ch}", ""):
                try:
                    found = open_under(root_fd, (cand + "/" if cand else "") + "kernel.cu") is not None
                except Refused:
                    found = True
                if found:
                    code = cand
                    break
            if code is None:
                st.refused = (f"no chapter code found (looked for {self.ch}/kernel.cu, "
                              f"exercises/{self.n}/{self.ch}/kernel.cu and kernel.cu)")
                return
            st.notes.append(f"the chapter's files taken from {code or 'the folder itself'}/")
            for f in self.files:
                rel = (code + "/" if code else "") + f
                try:
                    data = open_under(root_fd, rel)
                except Refused as e:
                    for ex in self.exercises_in(f):
                        st.reasons.setdefault(ex, str(e))
                    continue
                if data is None:
                    continue  # splice() says it is missing
                if b"\0" in data:
                    for ex in self.exercises_in(f):
                        st.reasons.setdefault(ex, f"{f} holds a NUL byte: refused")
                    continue
                texts[f] = data.decode("utf-8", "surrogateescape")
        finally:
            os.close(root_fd)
        lessons = {f: regions.lines_of(open(os.path.join(self.lesson_dir, f), encoding="utf-8").read())
                   for f in self.files}
        for f in self.files:  # what is missing, repeated or refused, in any file
            sub = regions.lines_of(texts[f]) if f in texts else None
            _, notes = regions.splice(lessons[f], sub, set(self.ids) - set(st.reasons), f)
            for ex, why in notes.items():
                st.reasons.setdefault(ex, why)
        st.spliced = {}
        for f in self.files:
            sub = regions.lines_of(texts[f]) if f in texts else None
            lines, _ = regions.splice(lessons[f], sub, set(self.ids) - set(st.reasons), f)
            st.spliced[f] = self.starter_for(f, lines, set(st.reasons))

    def starter_for(self, f, lines, refused):
        """The lines with the regions of the refused exercises as the starter has them."""
        out, at = [], 0
        for r in regions.parse(lines, f):
            out.extend(lines[at:r.begin + 1])
            out.extend(regions.starter_lines(r) if r.ex in refused else r.lines)
            out.append(lines[r.end])
            at = r.end + 1
        return out + lines[at:]

    def exercises_in(self, f):
        return sorted({r.ex for r in self.lesson_regions.get(f, []) if r.ex in self.ids})

    def make_copy(self, st):
        c = os.path.join(self.work, "s", f"{st.index:04d}")
        self.jail.drop_room(c)
        self.jail.make_room(c)  # a tmpfs of its own size, where the grader can mount one
        st.copy = c
        shutil.copytree(self.template, c, symlinks=True, dirs_exist_ok=True)
        for f, lines in st.spliced.items():
            with open(os.path.join(c, self.ch, f), "w", encoding="utf-8", errors="surrogateescape") as fh:
                fh.write("\n".join(lines))
        os.makedirs(os.path.join(c, ".tmp"))  # TMPDIR of its steps where no namespace gives them a /tmp
        os.chmod(c, 0o700)
        self.jail.own(c, st.index)

    def cpu_stage(self, st):
        """The splice, the PTX part and the builds: no GPU, and no student
        code runs. Returns whether the GPU part is to run."""
        t0 = time.monotonic()
        self.take(st)
        if st.refused or all(ex in st.reasons for ex in self.ids):
            st.times["cpu"] = time.monotonic() - t0
            return False
        self.make_copy(st)
        code = os.path.join(st.copy, self.ch)
        work = os.path.join(self.work, "checks", f"{st.index:04d}")
        os.makedirs(work, mode=0o700, exist_ok=True)
        st.check = check.Check(self.plan, code, os.path.join(code, "build", "check"), work, Jailed(self, st),
                               arch=self.arch, verifier=self.verifier, names=self.names, budget=self.budget)
        os.makedirs(os.path.join(code, "build", "check"), exist_ok=True)
        self.jail.own(os.path.join(code, "build"), st.index)
        st.region_list = check.read_regions(code, self.files)
        # students whose spliced files are the same share one compile of their PTX part
        key = hashlib.sha256("\0".join(f + "\0" + "\n".join(st.spliced[f]) for f in sorted(st.spliced))
                             .encode("utf-8", "surrogateescape")).hexdigest()
        with self.ptx_lock:
            entry = self.ptx_cache.get(key)
            first = entry is None
            if first:
                entry = self.ptx_cache[key] = {"done": threading.Event()}
        if first:
            try:
                st.check.ptx_part(st.region_list)
                entry["rows"], entry["errors"] = list(st.check.rows), st.check.build_errors
            finally:  # the others with these files wait for it, even when it failed
                entry["done"].set()
        else:
            entry["done"].wait()
            if "rows" not in entry:
                raise RuntimeError("the PTX part of the same files failed for another folder")
            for r in entry["rows"]:
                st.check.row(*r)
            st.check.build_errors = entry["errors"]
        # runs whose kernels hold only exercises lost already (refused, or failed the PTX part) are not made
        st.check.region_list = st.region_list
        st.check.lost = set(st.reasons) | {r[0] for r in st.check.rows if r[1] == "FAIL" and r[0] in self.ids}
        go = False
        if self.gpus:
            st.progs = {label: st.check.build(label, knobs) for label, knobs, _ in self.plan.builds}
            go = st.progs[""] is not None
        st.times["cpu"] = time.monotonic() - t0
        return go

    def gpu_stage(self, st, gpu):
        t0 = time.monotonic()
        st.gpu = gpu
        st.check.venv = {"CUDA_VISIBLE_DEVICES": str(gpu)}
        st.check.gpu_part(st.progs)
        st.times["gpu"] = time.monotonic() - t0

    def finish(self, st):
        """The student's gradebook rows."""
        c = st.check
        ptx = {r[0]: r[1] for r in (c.rows if c else []) if re.match(r"^\d\d\.\d+$", r[0])}
        ran_gpu = c is not None and bool(self.gpus) and getattr(st, "progs", {}).get("") is not None
        for ex in self.ids:
            row = {"student": as_cell(display(st.name)), "exercise": ex, "max": self.rubric.get(ex, 0),
                   "feedback": st.feedback, "questions": ""}
            why = st.refused or st.reasons.get(ex)
            if why:
                row.update(ptx="refused", correct="-", racecheck="-", points=0, reason=why, speed="-")
                st.rows[ex] = row
                continue
            p = {"ok": "ok", "FAIL": "FAIL", "-": "gpu-only"}.get(ptx.get(ex), "not-run")
            if ran_gpu:
                correct, race = c.exercise_gpu(ex, st.region_list)
            elif c is not None and self.gpus:
                correct, race = "no", "n/a"  # it does not build
            else:
                correct, race = "pending", "n/a"
            reasons = []
            if p in ("FAIL", "not-run"):
                reasons.append("the PTX part fails" if p == "FAIL" else "no PTX part")
            if correct == "no":
                fails = [f"{k} ({'; '.join(c.kernel_fail.get(k, ['does not build']))})"
                         for k in self.kernels_of(ex) if k in c.kernel_fail or not ran_gpu]
                reasons.append("a kernel that holds it fails: " + (", ".join(fails) or "the build"))
            if race == "FAIL":
                reasons.append("racecheck found a hazard")
            pts = 0 if reasons else ("pending" if correct == "pending" else row["max"])
            sp = [f"{k} {100 * self.lesson_ms[k] / c.speed[k]:.0f}%" for k in self.kernels_of(ex)
                  if c and k in c.speed and k in self.lesson_ms]
            if sp and self.per_gpu > 1:
                sp.append(f"(on a GPU shared by {self.per_gpu} students)")
            row.update(ptx=p, correct=correct, racecheck=race, points=pts, reason="; ".join(reasons),
                       speed=" ".join(sp) or "-")
            st.rows[ex] = row

    def kernels_of(self, ex):
        return [k for f in self.plan.holders(ex, self.lesson_regions) for k in self.plan.files[f]]

    def feedback(self, st):
        lines = [f"grade-{self.n}: {display(st.name)} ({self.ch})", "(" + self.jail.describe() + ")", ""]
        if st.refused:
            lines.append(f"refused: {st.refused}")
        for note in st.notes:
            lines.append(f"note: {note}")
        for ex, why in sorted(st.reasons.items()):
            lines.append(f"{ex}: 0 points: {why}")
        if st.check:
            lines += ["", "the check (only the text of your regions was taken; the rest is the repository's):"]
            for label, status, detail in st.check.rows:
                lines.append(f"  {label:<14} {status:<9} {detail}")
            if st.check.build_errors:
                lines += ["", "the compiler said:"] + ["  | " + l for l in st.check.build_errors]
            for k, ms in st.check.speed.items():
                les = self.lesson_ms.get(k)
                lines.append(f"  speed          -         {k}: {ms:.3f} ms as your program reported it" +
                             (f"; the lesson's {les:.3f} ms on this GPU: {100 * les / ms:.0f}%" if les else "") +
                             (f", on a GPU {self.per_gpu} students shared" if self.per_gpu > 1 else "") +
                             " (not graded)")
        lines.append("")
        for ex in self.ids:
            r = st.rows[ex]
            lines.append(f"{ex}: {r['points']} of {r['max']}" + (f" ({r['reason']})" if r["reason"] else ""))
        return "\n".join(lines) + "\n"


class Jailed:
    """check.Check's executor for one student: every step in the student's jail."""

    def __init__(self, g, st):
        self.g, self.st, self.log = g, st, None

    def inside(self, real):
        return self.g.jail.path(self.st.copy, real)

    def fresh_dir(self, d):
        """An empty folder d in the student's copy, the student's, made by
        root without following a link on the way: the student's program ran
        in that copy and may have put one where a folder was."""
        rel = os.path.relpath(d, self.st.copy).split("/")
        fd = os.open(self.st.copy, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for p in rel[:-1]:
                try:
                    nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except OSError:
                    raise Refused(f"{'/'.join(rel[:-1])} of the copy is not a folder any more (the program "
                                  "put something else there): refused")
                os.close(fd)
                fd = nfd
            name = rel[-1]
            try:
                old = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISDIR(old.st_mode):
                    shutil.rmtree(name, dir_fd=fd)
                else:
                    os.unlink(name, dir_fd=fd)
            except FileNotFoundError:
                pass
            os.mkdir(name, 0o755, dir_fd=fd)
            uid = self.g.jail.uid(self.st.index)
            if uid is not None:
                os.chown(name, uid, uid, dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(fd)

    def step(self, argv, cwd, gpu, timeout, stdout=None):
        env = sandbox.clean_env(dict(self.g.cache_env, TUTORIAL_NVCC_CACHE_RO="1",
                                     CUDA_VISIBLE_DEVICES=str(getattr(self.st, "gpu", "")) if gpu else ""))
        a, c, e = self.g.jail.argv(argv, self.st.copy, cwd, self.st.index, env, gpu)
        self.log.write(f"$ {' '.join(argv)}\n")
        self.why = None  # set when the step is ended for outgrowing its room
        room = None if self.g.jail.quota else (lambda: self.g.jail.over_room(self.st.copy))
        rc, self.why = run_split(a, c, e, timeout, stdout or self.log, self.log, watch=room)
        if not self.g.jail.ns and self.g.jail.uid(self.st.index) is not None:
            sweep(self.g.jail, self.st.index)
        return rc

    def take_dumps(self, d, dest):
        """The dump folder's regular files, copied out of the student's copy
        without following a link anywhere on the way (the student's program
        wrote in that copy); None when the way holds anything else."""
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest, mode=0o700)
        rel = os.path.relpath(d, self.st.copy).split("/")
        fd = os.open(self.st.copy, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for p in rel:
                nfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nfd
            names, total = os.listdir(fd), 0
            if len(names) > MAX_DUMPS:
                return None
            for name in names:
                if not re.match(r"^[A-Za-z0-9_]+\.[0-9]+\.bin$", name):
                    return None
                ffd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
                with os.fdopen(ffd, "rb") as src:
                    st = os.fstat(src.fileno())
                    total += st.st_size
                    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_DUMP or total > MAX_DUMPS * MAX_DUMP // 4:
                        return None
                    with open(os.path.join(dest, name), "wb") as out:
                        shutil.copyfileobj(src, out)
        except OSError:
            return None
        finally:
            os.close(fd)
        return dest


RUNNING = set()  # the process groups of the steps running now
OWN_WORK = []     # work folders this run made (removed when it ends or is stopped)


def stop_all(signum, frame):
    """Stopped (Ctrl-C, a kill): end every step first, then exit."""
    for pid in list(RUNNING):
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if OWN_WORK and not os.environ.get("KEEP_WORK"):
        # removed by a process of its own once this one is gone, so that no
        # thread of this one reports the folder vanishing under it
        subprocess.Popen(["sh", "-c", 'sleep 1; rm -rf -- "$@"', "sh", *OWN_WORK], start_new_session=True,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os._exit(128 + signum)


def run_split(argv, cwd, env, timeout, out, err, watch=None):
    """Run a step in its own session (out and err: files); kill its process
    group when it ends or outlasts timeout, or when watch (called twice a
    second) names a reason. Returns (exit status or None: killed, the
    watcher's reason or None)."""
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                         start_new_session=True)
    RUNNING.add(p.pid)
    why, end = None, time.monotonic() + timeout
    try:
        while True:
            try:
                rc = p.wait(timeout=min(0.5, max(0.0, end - time.monotonic())) if watch else
                            max(0.0, end - time.monotonic()))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= end:
                    rc = None
                    break
                why = watch() if watch else None
                if why:
                    rc = None
                    break
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if p.poll() is None:
            p.wait()
        RUNNING.discard(p.pid)
    return rc, why


def sweep(jail, index):
    """Without a namespace: end every process of the student's uid (one
    that left a daemon behind, say)."""
    uid = jail.uid(index)
    subprocess.run([jail.setpriv, f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", "kill", "-9", "-1"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# --------------------------------------------------------------- the run

def students_of(subs):
    names = []
    with os.scandir(subs) as it:
        for e in it:
            names.append(e.name)
    return sorted(names, key=lambda s: s.encode("utf-8", "surrogateescape"))


def failure(e):
    """Why a folder is refused when its grading raised e."""
    return str(e) if isinstance(e, Refused) else f"the grader failed on this folder: {type(e).__name__}: {e}"


def grade(g, names, only=None):
    """Grade names (or the ones whose index is in `only`); returns the students."""
    students = [Student(i, nm) for i, nm in enumerate(names) if only is None or i in only]
    gpu_q = queue.Queue()
    done = []
    t0 = time.monotonic()

    def cpu(st):
        try:
            if g.cpu_stage(st):
                gpu_q.put(st)
            else:
                finish(st)
        except Exception as e:  # a grader bug must not lose the other students
            st.refused = st.refused or failure(e)
            finish(st)

    def finish(st):
        g.finish(st)
        with open(os.path.join(g.out, st.feedback), "w", encoding="utf-8", errors="backslashreplace") as f:
            f.write(g.feedback(st))
        if st.copy:
            g.jail.disown(st.copy)
            if not os.environ.get("KEEP_WORK"):
                g.jail.drop_room(st.copy)
        done.append(st)
        pts = sum(r["points"] for r in st.rows.values() if isinstance(r["points"], int))
        pend = any(r["points"] == "pending" for r in st.rows.values())
        g.say(f"graded {len(done)}/{len(students)}: {display(st.name)!r}: "
              + (f"refused ({st.refused})" if st.refused else f"{pts}{' + pending' if pend else ''} points")
              + f" [{', '.join(f'{k} {v:.0f} s' for k, v in st.times.items())}]")

    def lane(gpu):
        while True:
            st = gpu_q.get()
            if st is None:
                return
            try:
                g.gpu_stage(st, gpu)
            except Exception as e:
                st.refused = st.refused or failure(e)
            finish(st)

    lanes = [threading.Thread(target=lane, args=(gpu,)) for gpu in g.gpus for _ in range(g.per_gpu)]
    for t in lanes:
        t.start()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=g.jobs) as pool:
            list(pool.map(cpu, students))
    finally:  # the lanes end even when the CPU part raised
        for _ in lanes:
            gpu_q.put(None)
        for t in lanes:
            t.join()
    g.elapsed = time.monotonic() - t0
    return students


def write_gradebook(path, rows):
    """The gradebook, written once (by the csv module) and moved into place."""
    with open(path + ".tmp", "w", newline="", encoding="utf-8", errors="backslashreplace") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def save_part(g, st, path):
    rows = [st.rows[ex] for ex in g.ids]
    with open(path + ".tmp", "w") as f:
        json.dump({"index": st.index, "rows": rows}, f)
    os.replace(path + ".tmp", path)


def slurm_script(n, subs, out, names, args):
    """Write OUT/slurm/: an array of one task per student, the merge that
    writes the one gradebook, and submit.sh, which submits the two."""
    d = os.path.join(out, "slurm")
    os.makedirs(d, exist_ok=True)
    me = os.path.abspath(__file__)
    common = (f"python3 {me} {n} --submissions {shq(subs)} --out {shq(out)} --rubric {shq(args.rubric)}")
    gpu = "" if args.no_gpu else "#SBATCH --gres=gpu:1\n"
    with open(os.path.join(d, "task.sbatch"), "w") as f:
        f.write(f"""#!/bin/bash
#SBATCH --job-name=grade-{n}
#SBATCH --array=0-{len(names) - 1}
#SBATCH --cpus-per-task={args.task_cpus}
{gpu}#SBATCH --output={out}/slurm/task-%a.log
# One student per task (the index into the sorted folder names), on one GPU
# when the cluster has them; each task writes OUT/parts/<index>.json.
set -eu
exec {common} --task "$SLURM_ARRAY_TASK_ID"{' --no-gpu' if args.no_gpu else ''}
""")
    with open(os.path.join(d, "merge.sbatch"), "w") as f:
        f.write(f"""#!/bin/bash
#SBATCH --job-name=grade-{n}-merge
#SBATCH --output={out}/slurm/merge.log
# Every task's part into the one gradebook, OUT/grades-{n}.csv.
set -eu
exec {common} --merge
""")
    with open(os.path.join(d, "submit.sh"), "w") as f:
        f.write(f"""#!/bin/bash
# Submit the grading of {len(names)} folders as a Slurm job array, then the merge.
set -eu
cd "$(dirname "$0")"
array=$(sbatch --parsable task.sbatch)
sbatch --parsable --dependency=afterany:"$array" merge.sbatch
echo "submitted array $array; the gradebook: {out}/grades-{n}.csv when the merge job ends"
""")
    os.chmod(os.path.join(d, "submit.sh"), 0o755)
    return d


def shq(s):
    return "'" + s.replace("'", "'\\''") + "'"


def main(argv):
    ap = argparse.ArgumentParser(prog="make grade-NN", description="grade a class's chapter NN")
    env = os.environ.get
    ap.add_argument("n")
    ap.add_argument("--submissions", default=env("SUBMISSIONS"), help="one folder per student (SUBMISSIONS=)")
    ap.add_argument("--out", default=env("GRADEBOOK") or None,
                    help="the gradebook's folder (GRADEBOOK=; default DIR-grades-NN beside DIR)")
    ap.add_argument("--rubric", default=env("RUBRIC") or os.path.join(HERE, "rubric.csv"))
    ap.add_argument("--gpus", default=env("GPUS"), help="GPU indices (GPUS=; default: every GPU)")
    ap.add_argument("--per-gpu", type=int, default=int(env("PER_GPU") or PER_GPU),
                    help=f"students whose GPU parts run at once on each GPU (PER_GPU=; default {PER_GPU})")
    ap.add_argument("--jobs", type=int, default=int(env("JOBS") or max(1, os.cpu_count() or 2)),
                    help="students whose CPU part runs at once (JOBS=)")
    ap.add_argument("--no-gpu", action="store_true", help="the PTX part only")
    ap.add_argument("--slurm", action="store_true", default=env("SLURM") == "1",
                    help="write a Slurm job array (SLURM=1) instead of grading here")
    ap.add_argument("--task-cpus", type=int, default=8)
    ap.add_argument("--task", type=int)
    ap.add_argument("--merge", action="store_true")
    ap.add_argument("--work")
    args = ap.parse_args(argv[1:])
    n = args.n
    if not args.submissions:
        sys.stderr.write("usage: make grade-NN SUBMISSIONS=DIR (one folder per student) [GRADEBOOK=DIR2] [RUBRIC=file] "
                         "[GPUS=\"0 1\"] [JOBS=n] [SLURM=1]\n")
        return 2
    if not re.match(r"^\d\d$", n) or not settings.chapter_of(n):
        sys.stderr.write(f"usage: make grade-NN SUBMISSIONS=DIR, NN one of: "
                         f"{' '.join(c[:2] for c in settings.chapters())}\n")
        return 2
    subs = os.path.realpath(args.submissions)
    if not os.path.isdir(subs):
        sys.stderr.write(f"grade-{n}: SUBMISSIONS={args.submissions} is not a folder\n")
        return 2
    out = os.path.realpath(args.out or (subs.rstrip("/") + f"-grades-{n}"))
    if out == subs or out.startswith(subs + "/") or subs.startswith(out + "/"):
        sys.stderr.write(f"grade-{n}: GRADEBOOK ({out}) must be outside SUBMISSIONS and not hold it\n")
        return 2
    if not os.path.isfile(args.rubric):
        sys.stderr.write(f"grade-{n}: no rubric {args.rubric}\n")
        return 2
    os.makedirs(os.path.join(out, "feedback"), exist_ok=True)
    os.makedirs(os.path.join(out, "parts"), exist_ok=True)
    if args.no_gpu or not check.have_gpu():
        gpus = []
    elif args.gpus is not None:
        gpus = [int(x) for x in args.gpus.replace(",", " ").split()]
    else:
        cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
        if cvd:
            gpus = [int(x) for x in cvd.split(",") if x.strip().isdigit()]
        else:
            gpus = list(range(len(subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, text=True)
                                  .stdout.splitlines())))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop_all)
    names = students_of(subs)
    if args.merge:
        return merge(n, out, names)
    if args.slurm:
        d = slurm_script(n, subs, out, names, args)
        print(f"wrote {d}/: task.sbatch (an array of {len(names)} tasks, one per folder), merge.sbatch; "
              f"run {d}/submit.sh on the cluster's login node")
        return 0
    g = Grader(n, subs, out, args.rubric, gpus, args.jobs, work=args.work, per_gpu=max(1, args.per_gpu))
    try:
        return grade_here(g, n, subs, out, names, gpus, args)
    finally:
        if not os.environ.get("KEEP_WORK"):
            for w in OWN_WORK:
                shutil.rmtree(w, ignore_errors=True)


def grade_here(g, n, subs, out, names, gpus, args):
    """Grade here (every folder, or --task's one) and write the gradebook (or the task's part)."""
    g.say(f"grade-{n}: {len(names)} folders in {subs}; GPUs {gpus}, {g.per_gpu} student(s) at once on each, "
          f"{args.jobs} CPU jobs")
    g.say(f"  {g.jail.describe()}")
    g.prepare()
    only = {args.task} if args.task is not None else None
    students = grade(g, names, only)
    if args.task is not None:
        for st in students:
            save_part(g, st, os.path.join(out, "parts", f"{st.index:05d}.json"))
        return 0
    write_gradebook(os.path.join(out, f"grades-{n}.csv"),
                    [st.rows[ex] for st in sorted(students, key=lambda s: s.index) for ex in g.ids])
    with open(os.path.join(out, "timing.json"), "w") as f:
        json.dump({"students": len(students), "gpus": gpus, "seconds": g.elapsed,
                   "per_student": {display(s.name): s.times for s in students}}, f, indent=1)
    g.say(f"wrote {out}/grades-{n}.csv and feedback/ ({len(students)} folders in {g.elapsed:.0f} s: "
          f"{3600 * len(students) / max(g.elapsed, 1e-9):.0f} students per hour); the questions column is yours")
    return 0


def merge(n, out, names):
    """The Slurm array's parts into one gradebook."""
    rows = []
    missing = []
    for i, nm in enumerate(names):
        p = os.path.join(out, "parts", f"{i:05d}.json")
        try:
            part = json.load(open(p))
        except (OSError, ValueError):
            missing.append(display(nm))
            continue
        rows += part["rows"]
    path = os.path.join(out, f"grades-{n}.csv")
    write_gradebook(path, rows)
    print(f"merged {len(names) - len(missing)} parts into {path}" +
          (f"; no part for: {', '.join(missing)}" if missing else ""))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
