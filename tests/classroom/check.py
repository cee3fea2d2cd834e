#!/usr/bin/env python3
"""make check-NN: check a student's code for chapter NN; and the check that
make grade-NN makes of every submission (tests/classroom/grade.py).

    make check-03                        the starter in exercises/03/ (make exercise-03)
    make check-03 DIR=path/to/03_warp_specialized   another copy of the chapter
    make check-03 DIR=03_warp_specialized           the lesson code itself

1. Its exercise regions: which are still the starter's TODO.
2. Every copy of every exercise, in the PTX of the file that holds it
   (kernel.cu, kernel_tc.cu, variants.cu, ...: `make ptx`), against the
   chapter's rules (tests/chapters/<chapter>.sh: CHECK_FILES, CHECK_PTX,
   CHECK_GPU). No GPU needed. A CHECK_PTX rule is
   "EXERCISE [FILE:]FUNCTION REGEX [COUNT] [after:R] [before:R] [if:R]"
   (words without spaces; extended regexes, [[:space:]] for a space):
     FILE       the PTX of FILE.cu (kernel_tc, variants, ...; default kernel);
                FILE@K=V,...: of FILE.cu built with those settings (the
                tensor-core files' mma.sync path: kernel_tc@TC_MMA=mma_sync)
     FUNCTION   "-": all of it; else the kernels whose name contains it
     REGEX      alone: at least one line of that PTX matches it
     COUNT      >=N, =N or <=N: how many lines match (the lesson's count,
                measured at the default knobs)
     after:R    the last line matching REGEX comes after the last matching R
                (a release after the reads); not judged when none matches R
     before:R   the first line matching REGEX comes before the first matching R
     if:R       judged only once R is in that PTX (another exercise's code it
                needs); until then its row says so
   CHECK_GPU entries, "EXERCISE[@FILE] what", name what the PTX cannot show
   of an exercise (of its copy in FILE.cu, or of every copy). Every copy
   of every exercise needs a rule or such an entry, and a copy in a
   tensor-core file (*_tc.cu) one on each MMA path (TC_PATHS).
3. On a GPU: every kernel that holds a region (CHECK_FILES), on both lines,
   verified element by element at the default size and at shapes that reach
   each region's code (odd shapes; a short K with more output tiles than
   resident blocks; CHECK_BUILDS: other knob settings, a 2 x 2 cluster),
   racecheck on a small problem, and the time beside the lesson's. A build
   in which ptxas had to add a wgmma wait the code leaves out fails.
   Graded (make grade-NN), each step has a time limit and the student's
   GPU part a budget, both from the lesson's own times for the same steps
   (Budget), and a run whose kernels hold only exercises lost already
   (refused, or failed the PTX part) is not made.

Exit 0 when everything passes, 1 when something fails, 2 bad usage, 3 when
the PTX part passed and there is no GPU (or too old a one) for the rest.
"""

import csv
import io
import os
import re
import shutil
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import regions  # noqa: E402
import settings  # noqa: E402

ROOT = settings.ROOT

# GEMM shapes every kernel that holds a region runs at: tiny, prime-ish,
# not multiples of any tile, K not a multiple of 8 (no 16-byte loads), and
# a K loop shorter than any ring with more output tiles than resident
# blocks (a persistent kernel's producers then run whole tiles ahead).
SHAPES = ["1x1x1", "17x33x9", "127x255x63", "2049x2047x1031", "4096x4096x32"]
RUN_LIMIT = 300      # seconds, wall, of one run (the program's own watchdog: 10 per kernel)
BUILD_LIMIT = 1200   # of a build
SAN_LIMIT = 1200     # of a compute-sanitizer run
RACECHECK_CLEAN = "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
# The PTX of a tensor-core file (*_tc.cu) is judged on both MMA paths: the
# default build's (wgmma on sm_90a) and the mma.sync path's.
TC_PATHS = ["", "@TC_MMA=mma_sync"]


# ------------------------------------------------------------------ budgets

class Budget:
    """The time a graded student's steps may take, from the lesson's own
    times for the same steps on this GPU (Grader.prepare() measures them):
    each run at most FLOOR + MULT x the lesson's (x the students sharing
    the GPU), and the GPU part in all TOTAL_FLOOR + TOTAL_MULT x the
    lesson's. make check-NN has none (None: the fixed limits above)."""
    FLOOR, MULT = 30.0, 4.0
    TOTAL_FLOOR, TOTAL_MULT = 120.0, 3.0

    def __init__(self, lesson, sharing=1):
        self.lesson = dict(lesson)   # {step: seconds}: a case's label, "racecheck", "build"
        self.sharing = sharing       # students on one GPU at once
        self.total = self.TOTAL_FLOOR + self.TOTAL_MULT * sharing * sum(
            v for k, v in self.lesson.items() if k != "build")

    def limit(self, step, default):
        les = self.lesson.get(step)
        return default if les is None else self.FLOOR + self.MULT * (self.sharing if step != "build" else 1) * les

    def why(self, step, limit):
        les = self.lesson.get(step)
        return (f"over the time budget: stopped at its limit of {limit:.0f} s" +
                (f" (the lesson's own run takes {les:.1f} s)" if les is not None else ""))


# ------------------------------------------------------------------ the plan

class Plan:
    """What the check of a chapter looks at, from its settings."""

    def __init__(self, ch, root=ROOT):
        self.ch, self.n, self.root = ch, ch[:2], root
        s = settings.load(ch, root)
        self.s = s
        self.gemm = s["GEMM"] == "1"
        self.files = {}   # "kernel_tc.cu" -> ["double_buffer_tc"]: the kernels a file's regions run in
        self.ptx = {}     # "blocked.cuh" -> "kernel.cu": the file whose PTX holds its code
        for e in s["CHECK_FILES"]:
            f, ptx, ks = e.split()
            self.files[f] = ks.split(",")
            self.ptx[f] = ptx + ".cu"
        self.rules = []   # (exercise, PTX file[@settings], function, [regex, words...], the rule's text)
        for r in s["CHECK_PTX"]:
            w = r.split()
            f, func = (w[1].split(":", 1) if ":" in w[1] else ("kernel", w[1]))
            f, at, knobs = f.partition("@")
            self.rules.append((w[0], f + ".cu" + at + knobs, func, w[2:], r))
        self.gpu_notes = []  # (exercise, file or None, what)
        for g in s["CHECK_GPU"]:
            head, text = g.split(" ", 1)
            ex, _, f = head.partition("@")
            self.gpu_notes.append((ex, (f + ".cu") if f else None, text))
        self.builds = [("", [], None)]  # (label, knobs, kernels or None: all)
        for b in s["CHECK_BUILDS"]:
            knobs, ks = b.split(":", 1)
            self.builds.append((knobs, knobs.split(","), ks.split(",")))
        self.kernels = []
        for ks in self.files.values():
            self.kernels += [k for k in ks if k not in self.kernels]

    def own(self, ids):
        return sorted(i for i in ids if i.startswith(self.n + "."))

    def holders(self, ex, region_list):
        """The files (of CHECK_FILES) that hold exercise ex."""
        return [f for f in self.files if any(r.ex == ex for r in region_list.get(f, []))]

    def only(self, kernels):
        """--only for these kernels: their names, or for a chapter whose
        table is not a GEMM (05) the parts CHECK_ONLY names."""
        return ",".join(kernels) if self.gemm else self.s["CHECK_ONLY"]

    def cases(self):
        """(label, build label, arguments, timed) of the GPU part."""
        out = []
        if self.gemm:
            out.append(("default size", "", ["--reps", "5", "--warmup", "1"], True))
            for i, shape in enumerate(SHAPES):
                m, n, k = shape.split("x")
                out.append((shape, "", ["--m", m, "--n", n, "--k", k, "--reps", "1", "--warmup", "0",
                                        "--seed", str(201 + i)], False))
        else:
            out.append(("default size", "", ["--reps", "2", "--warmup", "1"], True))
            for c in self.s["QUICK_CASES"]:
                words = [w.replace("+", ",") for w in c.split(",") if not w.startswith("--only=")]
                out.append((" ".join(w.lstrip("-") for w in words), "", words + ["--reps", "1", "--warmup", "0"],
                            False))
        for label, _, _ in self.builds[1:]:
            for i, shape in enumerate(["256x256x256", "300x260x1001"]):
                m, n, k = shape.split("x")
                out.append((f"{shape} [{label}]", label, ["--m", m, "--n", n, "--k", k, "--reps", "1", "--warmup",
                                                          "0", "--seed", str(301 + i)], False))
        return out

    def sanitize_args(self):
        return list(self.s["SANITIZE_ARGS"]) or ["--m", "130", "--n", "200", "--k", "70"]

    def build_kernels(self, label):
        for lab, _, ks in self.builds:
            if lab == label:
                return [k for k in self.kernels if ks is None or k in ks]
        return []

    def coverage(self, region_list):
        """The copies of exercises with neither a PTX rule nor a CHECK_GPU line."""
        out = []
        for f, rs in region_list.items():
            if f not in self.files:
                if any(r.ex.startswith(self.n + ".") for r in rs):
                    out.append(f"{f}: holds chapter {self.n}'s regions and is not in CHECK_FILES")
                continue
            for ex in self.own({r.ex for r in rs}):
                noted = any(nx == ex and nf in (None, f) for nx, nf, _ in self.gpu_notes)
                for path in TC_PATHS if self.ptx[f].endswith("_tc.cu") else [""]:
                    ruled = any(rx == ex and rf == self.ptx[f] + path for rx, rf, *_ in self.rules)
                    if not (ruled or noted):
                        out.append(f"exercise {ex} in {f}: no CHECK_PTX rule on {self.ptx[f]}{path}'s PTX, "
                                   "no CHECK_GPU line")
        return out

    def ptx_builds(self):
        """{settings: the PTX files to build with them} ("": the default build)."""
        out = {"": sorted(set(self.ptx.values()))}
        for _, rf, *_ in self.rules:
            f, at, knobs = rf.partition("@")
            if at:
                out.setdefault(knobs, [])
                out[knobs] += [] if f in out[knobs] else [f]
        return out

    def ptx_make_args(self):
        """(folder, settings, files, make's arguments) of each PTX build
        (ptx_builds), the folder under the copy's build root."""
        return [("ptx" + ("-" + re.sub(r"[^A-Za-z0-9]+", "_", knobs) if knobs else ""), knobs, files,
                 ["ptx", "PTX_FILES=" + " ".join(f[:-3] for f in files)] + (knobs.split(",") if knobs else []))
                for knobs, files in self.ptx_builds().items()]


# ------------------------------------------------------------------- PTX rules

def ere(rx):
    """An extended regex as grep -E reads it, for Python's re."""
    return re.compile(rx.replace("[[:space:]]", r"\s"))


def ptx_of(lines, func):
    """The PTX lines of the kernels whose name contains func ('-': all)."""
    if func == "-":
        return lines
    out, on = [], False
    for line in lines:
        if re.match(r"^\.(visible )?\.entry ", line):
            on = func in line
        if on:
            out.append(line)
    return out


def shown(rx):
    return rx.replace("\\", "").replace("[[:space:]]+", " ").replace("[[:space:]]*", " ")


def ptx_rule(lines, func, rx, words):
    """One CHECK_PTX rule on the PTX lines of a file: (status, phrase), status
    0 (holds), 1 (does not), 3 (its if: not met yet), 2 (cannot be read)."""
    count = after = before = cond = None
    for w in words:
        if w.startswith("after:"):
            after = w[6:]
        elif w.startswith("before:"):
            before = w[7:]
        elif w.startswith("if:"):
            cond = w[3:]
        elif re.match(r"^(>=|<=|=)[0-9]+$", w):
            count = w
        else:
            return 2, f"'{w}' is not >=N, =N, <=N, after:R, before:R or if:R"
    body = ptx_of(lines, func)
    say = shown(rx)
    if cond and not any(ere(cond).search(x) for x in body):
        return 3, f"{say} not judged yet (only once the PTX has {shown(cond)})"
    r = ere(rx)
    at = [i for i, x in enumerate(body) if r.search(x)]
    ok = True
    if count is None:
        if not at:
            say, ok = "no " + say, False
    else:
        op, want = re.match(r"(>=|<=|=)([0-9]+)", count).groups()
        ok = {">=": len(at) >= int(want), "<=": len(at) <= int(want), "=": len(at) == int(want)}[op]
        say += f" x{len(at)} ({'wants ' + count if not ok else count})"
    for kind, r2 in (("after", after), ("before", before)):
        if r2 is None or not at:
            continue
        at2 = [i for i, x in enumerate(body) if ere(r2).search(x)]
        word = "last" if kind == "after" else "first"
        if not at2:
            say += f" (its order not judged: no {shown(r2)})"
        elif (at[-1] > at2[-1]) if kind == "after" else (at[0] < at2[0]):
            say += f", the {word} {kind} the {word} {shown(r2)}"
        else:
            say += f", but the {word} one not {kind} the {word} {shown(r2)}"
            ok = False
    if func != "-":
        say += f" in {func}"
    return (0 if ok else 1), say


def ptx_rows(plan, region_list, ptx_files):
    """The PTX part's rows: one per own exercise, with the rules of every
    copy. region_list: {file: [Region]}; ptx_files: {PTX file: lines, or
    None when it does not compile}. Returns [(exercise, ok/FAIL/-, detail)]."""
    rows = []
    for ex in plan.own({r.ex for rs in region_list.values() for r in rs}):
        mine = [r for rs in region_list.values() for r in rs if r.ex == ex]
        state = "written" if any(r.state() == "written" for r in mine) else "todo"
        found, missing, later, gpu = [], [], [], []
        for f in sorted({plan.ptx[h] for h in plan.holders(ex, region_list)}):
            for rex, rf, func, words, text in plan.rules:
                if rex != ex or rf.partition("@")[0] != f:
                    continue
                lines, tag = ptx_files.get(rf), rf.replace(".cu", "")
                if lines is None:
                    missing.append(f"{tag}: no PTX ({rf} does not compile)")
                    continue
                st, say = ptx_rule(lines, func, words[0], words[1:]) if words else (2, "no REGEX")
                if st == 2:
                    raise SystemExit(f"tests/chapters/{plan.ch}.sh: CHECK_PTX rule '{text}': {say}")
                {0: found, 1: missing, 3: later}[st].append(f"{tag}: {say}")
        for nex, nf, text in plan.gpu_notes:
            if nex == ex:
                gpu.append(f"the PTX cannot show {text}" + (f" ({nf})" if nf else "") + ": the GPU part decides")
        head = f"{mine[0].title} [{state}]: "
        if missing:
            rows.append((ex, "FAIL", head + "the PTX has " + "; ".join(missing + later)))
        elif found:
            rows.append((ex, "ok", head + "the PTX has " + "; ".join(found + later + gpu)))
        elif later:
            rows.append((ex, "-", head + "; ".join(later + gpu)))
        else:
            rows.append((ex, "-", head + "nothing in the PTX to look for; " + ("; ".join(gpu) or "the GPU part checks it")))
    return rows


def read_regions(code_dir, files):
    """{file: [Region]} of the files of a chapter's code (missing files: [])."""
    out = {}
    for f in files:
        p = os.path.join(code_dir, f)
        out[f] = regions.parse(regions.lines_of(open(p, encoding="utf-8", errors="surrogateescape").read()), f) \
            if os.path.isfile(p) else []
    return out


def region_files(d):
    """The sources in d with exercise regions (as tests/lib.sh's region_files)."""
    out = []
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if f.endswith((".cu", ".cuh", ".c", ".h")) and os.path.isfile(p) and not os.path.islink(p):
            if "// ---- exercise " in open(p, encoding="utf-8", errors="surrogateescape").read():
                out.append(f)
    return out


# ------------------------------------------------------------- GPU verdicts

VERDICT = re.compile(r"^\s+(\S+)\s+(first run|after timing|dumped run)\s+(PASSED|FAILED)")
EXIT_WORDS = {0: "verified", 1: "wrong results (exit 1)", 2: "refused its options (exit 2)",
              3: "cannot run here (exit 3)", 4: "CUDA error (exit 4)", 5: "hung: the watchdog ended it (exit 5)",
              None: "outlasted its time limit and was killed"}


def verdicts(text):
    """{row: passed} from a run's PASSED/FAILED lines (every line of a row must pass)."""
    out = {}
    for line in text.splitlines():
        m = VERDICT.match(line)
        if m:
            out[m.group(1)] = out.get(m.group(1), True) and m.group(3) == "PASSED"
    return out


def make_exit(rc):
    """A build step's end, in words (its exit codes are make's, not the program's)."""
    return "outlasted its time limit and was killed" if rc is None else f"make exit {rc}" if rc >= 0 else \
        f"killed by signal {-rc}"


def what_exit(rc):
    if rc in EXIT_WORDS:
        return EXIT_WORDS[rc]
    return f"exit {rc}" if rc >= 0 else f"killed by signal {-rc}"


def hazard_kernels(text, kernels):
    """The kernels racecheck's report names in its hazards (all, when it names none)."""
    hit = [k for k in kernels if re.search(r"\bgemm_" + re.escape(k) + r"\b", text)]
    return hit or list(kernels)


def printable(line, width=300):
    return "".join(c if c.isprintable() or c == "\t" else "?" for c in line)[:width]


def read_fd_text(f, limit=64 << 20):
    """What a file object the grader opened holds (read from its start)."""
    f.flush()
    f.seek(0)
    return f.read(limit).decode("utf-8", "replace") if "b" in getattr(f, "mode", "") else f.read(limit)


def read_text(path, limit=64 << 20):
    """A regular file's text, not following a link at its last name."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit).decode("utf-8", "replace") if limit < (1 << 20) else \
            b"".join(iter(lambda: os.read(fd, 1 << 20), b""))[:limit].decode("utf-8", "replace")
    finally:
        os.close(fd)


def nvcc_path():
    """The real nvcc (not the suite's cache in front of it)."""
    r = os.environ.get("TUTORIAL_NVCC_REAL")
    if r:
        return r
    return shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def cuda_home(nvcc):
    """The CUDA Toolkit's folder: $CUDA_HOME where it holds the headers, else
    the folder above nvcc's bin/ (a wrapper script's folder holds none:
    then /usr/local/cuda)."""
    for d in (os.environ.get("CUDA_HOME"), os.path.dirname(os.path.dirname(os.path.realpath(nvcc))),
              "/usr/local/cuda"):
        if d and os.path.isfile(os.path.join(d, "include", "cuda_runtime_api.h")):
            return d
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


def sanitizer():
    return shutil.which("compute-sanitizer") or next(
        (p for p in ("/usr/local/cuda/bin/compute-sanitizer",) if os.access(p, os.X_OK)), None)


def verifier_env(extra=None):
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "CUDA_VISIBLE_DEVICES", "HOME")}
    env.update(extra or {})
    return env


def have_gpu():
    cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None and cvd == "":
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], stdout=subprocess.PIPE,
                              text=True, timeout=60).stdout.splitlines()[0].strip()
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return "a GPU"


def gpu_slug():
    m = re.search(r"\b[a-z]{1,2}[0-9]{2,4}\b", gpu_name().lower())
    return m.group(0) if m else "gpu"


def program_names(prog):
    """The names --only takes, from a program's --help."""
    try:
        out = subprocess.run([prog, "--help"], stdout=subprocess.PIPE, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    m = re.search(r"from: (.*)", out)
    return m.group(1).split() if m else []


def csv_times(text):
    """{kernel: median ms} of a run's --csv rows."""
    rows = [l for l in text.splitlines() if l.count(",") >= 10]
    out = {}
    if rows and rows[0].startswith("gpu,"):
        for r in csv.DictReader(io.StringIO("\n".join(rows))):
            try:
                out[r["kernel"]] = float(r["ms_median"])
            except (KeyError, ValueError, TypeError):
                pass
    return out


# --------------------------------------------------------------- executors

class Local:
    """make check-NN: the student's own code, run as the student, in place."""

    def __init__(self):
        self.log = None

    def step(self, argv, cwd, gpu, timeout, stdout=None):
        self.log.write(f"$ (in {cwd}) {' '.join(argv)}\n")
        self.log.flush()
        try:
            # a run's report and its CSV rows both go to stdout's file: its PASSED/FAILED lines judge it
            return subprocess.run(argv, cwd=cwd, stdout=stdout or self.log, stderr=stdout or self.log,
                                  timeout=timeout, stdin=subprocess.DEVNULL).returncode
        except subprocess.TimeoutExpired:
            return None

    def inside(self, real):
        return real

    def fresh_dir(self, d):
        """An empty folder d for the program's outputs."""
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)

    def take_dumps(self, d, dest):
        return d


class Check:
    """One chapter's check of one copy of its code.

    code: the chapter folder being checked; build: where its builds, PTX and
    dumps go (in the code's copy: the student's program writes there);
    work: the checker's own logs and outputs (for grading, outside the copy).
    verifier: the lesson's program, which judges the dumps (grading), or
    None: the runs' own PASSED/FAILED lines judge (make check-NN)."""

    def __init__(self, plan, code, build, work, ex, out=None, arch=None, verifier=None, names=None,
                 verifier_env=None, budget=None):
        self.plan, self.code, self.build_root, self.work, self.ex, self.out = plan, code, build, work, ex, out
        self.arch, self.verifier, self.names = arch, verifier, names
        self.venv = verifier_env or {}
        self.budget, self.used = budget, 0.0  # Budget, and the seconds the GPU part has taken
        self.lost = set()  # exercises already at 0 (make grade-NN): a run of only their kernels is not made
        self.region_list = {}  # {file: [Region]} of the code checked (the PTX part sets it)
        self.rows, self.failed = [], False
        self.kernel_fail, self.kernel_ran, self.race = {}, {}, {}
        self.speed, self.pending, self.build_errors = {}, [], []
        os.makedirs(work, exist_ok=True)
        self.log_path = os.path.join(work, "check.log")
        self.log = open(self.log_path, "a")
        ex.log = self.log

    def row(self, label, status, detail):
        self.rows.append((label, status, detail))
        self.failed = self.failed or status == "FAIL"
        if self.out:
            self.out.write(f"  {label:<14} {status:<9} {detail}\n")
            self.out.flush()

    def say(self, text):
        if self.out:
            self.out.write(text + "\n")
            self.out.flush()

    def make(self, *args):
        a = ["make", "--no-print-directory", "-C", self.ex.inside(self.code)]
        return a + ([f"ARCH={self.arch}"] if self.arch else []) + list(args)

    def log_tail(self, since, n=20):
        self.log.flush()
        with open(self.log_path, "rb") as f:
            f.seek(since)
            lines = f.read().decode("utf-8", "replace").splitlines()
        return [printable(l) for l in lines if not l.startswith("$ ")][-n:]

    # -------------------------------------------------------------- PTX part
    def ptx_part(self, region_list):
        self.region_list = region_list
        ptx, failed = {}, None
        for folder, knobs, files, args in self.plan.ptx_make_args():
            d = os.path.join(self.build_root, folder)
            at = self.log.tell()
            rc = self.ex.step(self.make(*args, f"BUILD={self.ex.inside(d)}"), self.code, False, BUILD_LIMIT)
            for f in files:
                text = read_text(os.path.join(d, f[:-3] + ".ptx"), 256 << 20) if rc == 0 else None
                ptx[f + ("@" + knobs if knobs else "")] = text.splitlines() if text is not None else None
            if rc != 0 and failed is None:
                failed = rc
                self.build_errors = self.log_tail(at)
        if failed is not None:
            for line in self.build_errors:
                self.say("  | " + line)
            self.row("PTX", "FAIL", f"the chapter's code does not compile ({make_exit(failed)}; above)")
        for r in ptx_rows(self.plan, region_list, ptx):
            self.row(*r)

    # -------------------------------------------------------------- GPU part
    def timed_step(self, step, default, argv, cwd, gpu, stdout=None):
        """A step under its limit (the budget's, or default); the GPU part's
        time is counted. Returns (exit status, why it was ended or None)."""
        limit = self.budget.limit(step, default) if self.budget else default
        t0 = time.monotonic()
        rc = self.ex.step(argv, cwd, gpu, limit, stdout=stdout)
        if gpu:
            self.used += time.monotonic() - t0
        why = getattr(self.ex, "why", None)  # the executor ended it (its copy outgrew its room)
        if why is None and rc is None and self.budget:
            why = self.budget.why(step, limit)
        return rc, why

    def over_budget(self):
        """Why the GPU part stops here (its budget spent), or None."""
        if self.budget and self.used >= self.budget.total:
            return (f"over the time budget: the GPU part took {self.used:.0f} s of the {self.budget.total:.0f} s "
                    "it may (from the lesson's own times)")
        return None

    def useful(self, k):
        """Whether kernel k holds any exercise not lost already."""
        exs = {r.ex for f, ks in self.plan.files.items() if k in ks for r in self.region_list.get(f, [])}
        return not self.lost or any(ex not in self.lost for ex in self.plan.own(exs))

    def build(self, label, knobs):
        d = os.path.join(self.build_root, "build-" + (re.sub(r"[^A-Za-z0-9]+", "_", label) or "default"))
        at = self.log.tell()
        rc, why = self.timed_step("build", BUILD_LIMIT, self.make(f"BUILD={self.ex.inside(d)}",
                                                                 f"BIN={self.ex.inside(d)}/run", *knobs),
                                  self.code, False)
        name = "build" + (f" [{label}]" if label else "")
        tail = self.log_tail(at, 400)
        if rc == 0 and any("(C7517)" in l or "(C7519)" in l for l in tail):
            rc = "wgmma"
        if rc != 0:
            self.build_errors = tail[-20:]
            for line in self.build_errors:
                self.say("  | " + line)
            self.row(name, "FAIL", "ptxas had to add a wgmma wait the code leaves out (C7517/C7519, above): a "
                     "stage is given back while the tensor cores may still read it" if rc == "wgmma"
                     else why or f"the chapter does not build ({make_exit(rc)}; above)")
            return None
        self.row(name, "ok", "built" + (f" with {' '.join(knobs)}" if knobs else ""))
        return os.path.join(d, "run")

    def judge(self, kernels, text, dump, args):
        """{kernel: passed} of one run: the verifier's verdict on its dumps
        (grading), or the run's own PASSED/FAILED lines (make check-NN)."""
        if self.verifier is None:
            return verdicts(text)
        d = self.ex.take_dumps(dump, os.path.join(self.work, "dumps"))
        if d is None:
            return {}
        # a kernel without a file did not run (the run died before it): no verdict
        there = sorted({f.split(".")[0] for f in os.listdir(d)})
        kernels = [k for k in kernels if k in there] if self.plan.gemm else kernels
        if not kernels or not there:
            return {}
        with open(os.path.join(self.work, "verify.log"), "w+") as log:
            try:
                subprocess.run([self.verifier, "--only", self.plan.only(kernels), "--check-dump", d] + args +
                               ["--timeout", "120"], stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=RUN_LIMIT, env=verifier_env(self.venv))
            except subprocess.TimeoutExpired:
                return {}
            return verdicts(read_fd_text(log))

    def available(self, kernels):
        if self.names is None:
            return kernels
        for k in kernels:
            if k not in self.names and k not in self.pending:
                self.pending.append(k)
        return [k for k in kernels if k in self.names]

    def run_case(self, prog, label, build, args, timed):
        """Every kernel of the build at one case; a run that dies (CUDA error,
        hang) leaves the kernels after it to a new run."""
        kernels = self.available(self.plan.build_kernels(build))
        failed = [k for k in kernels if k in self.kernel_fail]
        kernels = [k for k in kernels if k not in self.kernel_fail]  # a kernel that failed once is not run again
        moot = [k for k in kernels if not self.useful(k)]
        kernels = [k for k in kernels if k not in moot]
        spent = self.over_budget()
        if spent and kernels:
            for k in kernels:
                self.kernel_fail.setdefault(k, []).append(f"{label}: not run: {spent}")
            self.row(label, "FAIL", f"not run ({', '.join(kernels)}): {spent}")
            return
        if not kernels:
            why = (["failed a run already: " + ", ".join(failed)] if failed else []) + \
                  (["every exercise they hold has lost its points already: " + ", ".join(moot)] if moot else [])
            if why:
                self.row(label, "-", "not run: " + "; ".join(why))
            return
        todo, bad, attempt, notrun = list(kernels), {}, 0, []
        while todo:
            attempt += 1
            dump = os.path.join(self.build_root, f"dump-{attempt}")
            self.ex.fresh_dir(dump)
            extra = (["--dump", self.ex.inside(dump)] if self.verifier is not None else []) + (["--csv"] if timed else [])
            argv = [self.ex.inside(prog), "--only", self.plan.only(todo)] + args + ["--timeout", "10"] + extra
            with open(os.path.join(self.work, "run.out"), "w+") as out:
                rc, why = self.timed_step(label, RUN_LIMIT, argv, os.path.dirname(prog), True, stdout=out)
                text = read_fd_text(out)
            if timed:
                self.speed.update(csv_times(text))
            got = self.judge(todo, text, dump, args)
            if not self.plan.gemm:  # one run per case: its rows are the verdicts
                for k in todo:
                    if k in got and not got[k]:
                        bad[k] = "wrong results"
                    elif k not in got and rc != 0:
                        bad[k] = what_exit(rc)
                    elif k not in got:  # a case that does not run it (05's --no-coop)
                        notrun.append(k)
                break
            for k in todo:
                if k in got and not got[k]:
                    bad[k] = "wrong results"
            rest = [k for k in todo if k not in got]
            if not rest:
                break
            # the kernel the run died in: the first without a verdict in the order the program
            # runs them (its table's FP32 rows, then its tensor-core rows)
            rest.sort(key=self.run_order)
            bad[rest[0]] = why or (what_exit(rc) if rc != 0 else "no result")
            todo = rest[1:]
            spent = self.over_budget()
            if spent:  # the rest is not run again
                bad.update({k: f"not run: {spent}" for k in todo})
                break
            if why:  # ended by the grader (its time limit, its room): host code, not a kernel, held it up
                bad.update({k: f"not run again: {why}" for k in todo})
                break
        for k in kernels:
            if k in bad:
                self.kernel_fail.setdefault(k, []).append(f"{label}: {bad[k]}")
            elif k not in notrun:
                self.kernel_ran[k] = self.kernel_ran.get(k, 0) + 1
        kernels = [k for k in kernels if k not in notrun]
        skipped = f" (not run again: {', '.join(failed)})" if failed else ""
        skipped += f" (not in this case: {', '.join(notrun)})" if notrun else ""
        if bad:
            self.row(label, "FAIL", "; ".join(f"{k}: {w}" for k, w in bad.items()) + skipped)
        else:
            self.row(label, "ok", "verified: " + ", ".join(kernels) + skipped)

    def run_order(self, k):
        names = self.names or self.plan.kernels
        return (k.endswith("_tc"), names.index(k) if k in names else len(names))

    def racecheck(self, prog):
        kernels = [k for k in self.available(self.plan.build_kernels("")) if k not in self.kernel_fail
                   and self.useful(k)]
        if not kernels:
            self.row("racecheck", "-", "not run: every kernel failed a run already, or holds only lost exercises")
            return
        spent = self.over_budget()
        if spent:
            self.race.update({k: "FAIL" for k in kernels})
            self.row("racecheck", "FAIL", f"not run: {spent}")
            return
        san = sanitizer()
        if not san:
            self.row("racecheck", "FAIL", "compute-sanitizer not found")
            self.race.update({k: "FAIL" for k in kernels})
            return
        dump = os.path.join(self.build_root, "dump-racecheck")
        self.ex.fresh_dir(dump)
        args = self.plan.sanitize_args() + ["--reps", "1", "--warmup", "0"]
        extra = ["--dump", self.ex.inside(dump)] if self.verifier is not None else []
        argv = [san, "--tool", "racecheck", "--error-exitcode", "99", self.ex.inside(prog), "--only",
                self.plan.only(kernels)] + args + ["--timeout", "600"] + extra
        with open(os.path.join(self.work, "racecheck.out"), "w+") as out:
            rc, why = self.timed_step("racecheck", SAN_LIMIT, argv, os.path.dirname(prog), True, stdout=out)
            text = read_fd_text(out)
        clean = rc == 0 and RACECHECK_CLEAN in text
        if clean:
            got = self.judge(kernels, text, dump, args)
            if not all(got.get(k, False) for k in kernels):
                clean = False
                why = "the run under racecheck did not verify, so its report proves nothing"
        if clean:
            self.race.update({k: "ok" for k in kernels})
            self.row("racecheck", "ok", "no hazard (" + " ".join(args[:6]) + ")")
            return
        summary = next((l.strip() for l in text.splitlines() if "RACECHECK SUMMARY" in l and "0 hazards" not in l),
                       None)
        hit = hazard_kernels(text, kernels) if summary else kernels
        self.race.update({k: ("FAIL" if k in hit else "ok") for k in kernels})
        self.row("racecheck", "FAIL", why or ((summary + f" ({', '.join(hit)})") if summary else what_exit(rc)))

    def gpu_part(self, progs):
        for label, build, args, timed in self.plan.cases():
            if progs.get(build):
                self.run_case(progs[build], label, build, args, timed)
        self.racecheck(progs[""])
        if self.pending:
            self.row("not run", "-", ", ".join(self.pending) + ": not in this build (the tensor-core line needs "
                                                               "sm_80 or later)")

    def exercise_gpu(self, ex, region_list):
        """(correct, racecheck) of an exercise, from the kernels that hold it:
        correct 'yes', 'no', or 'pending' (a kernel this GPU cannot run)."""
        ks = [k for f in self.plan.holders(ex, region_list) for k in self.plan.files[f]]
        ran = [k for k in ks if k not in self.pending]
        if any(k in self.kernel_fail or k not in self.kernel_ran for k in ran):
            correct = "no"
        elif len(ran) < len(ks):
            correct = "pending"
        else:
            correct = "yes"
        race = "FAIL" if any(self.race.get(k) == "FAIL" for k in ran) else \
            "ok" if ran and all(self.race.get(k) == "ok" for k in ran) else "n/a"
        return correct, race


# ------------------------------------------------------------- make check-NN

def lesson_times(plan, handout, kernels):
    """{kernel: ms} of the lesson at the default size: timed here (a build
    under tests/build/bench), or in a handout the committed measurement."""
    if handout:
        p = os.path.join(ROOT, "docs", "results", gpu_slug() + ".csv")
        out = {}
        if os.path.isfile(p):
            for r in csv.DictReader(l for l in open(p) if not l.startswith("#")):
                if r.get("chapter") == plan.ch and r.get("m") == r.get("n") == r.get("k") == "4096":
                    out.setdefault(r["kernel"], float(r["ms_median"]))
        return out, f"committed in docs/results/{gpu_slug()}.csv, not timed here"
    d = os.path.join(ROOT, "tests", "build", "bench", plan.ch, "default")
    os.makedirs(os.path.join(ROOT, "tests", "build", "logs"), exist_ok=True)
    with open(os.path.join(ROOT, "tests", "build", "logs", f"build-{plan.ch}-default.log"), "w") as f:
        if subprocess.run(["make", "--no-print-directory", "-C", os.path.join(ROOT, plan.ch), f"BUILD={d}",
                           f"BIN={d}/run"], stdout=f, stderr=subprocess.STDOUT).returncode != 0:
            return {}, None
    p = subprocess.run([os.path.join(d, "run"), "--only", plan.only(kernels), "--reps", "5", "--warmup", "1",
                        "--csv"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return csv_times(p.stdout), "timed here, just after"


def main(argv):
    n = argv[1] if len(argv) > 1 else ""
    ch = settings.chapter_of(n) if re.match(r"^[0-9][0-9]$", n) else None
    if not ch:
        sys.stderr.write("usage: make check-NN [DIR=the chapter's code], NN one of: "
                         + " ".join(c[:2] for c in settings.chapters()) + "\n")
        return 2
    plan = Plan(ch)
    handout = os.path.isfile(os.path.join(ROOT, "HANDOUT"))
    d = os.environ.get("DIR") or (ch if handout else f"exercises/{n}/{ch}")
    d = d if os.path.isabs(d) else os.path.join(ROOT, d)
    if not os.path.isfile(os.path.join(d, "kernel.cu")):
        sys.stderr.write(f"check-{n}: no chapter code in {os.path.relpath(d, ROOT)} "
                         f"(make exercise-{n} writes the starter there)\n")
        return 2
    d = os.path.realpath(d)
    lesson = d == os.path.join(ROOT, ch) and not handout
    build = os.path.join(d, "build", "check")
    os.makedirs(build, exist_ok=True)
    open(os.path.join(build, "check.log"), "w").close()
    c = Check(plan, d, build, build, Local(), sys.stdout)
    rel = os.path.relpath(d, ROOT)
    c.say(f"check-{n}: {ch}, the code in {rel}{' (the lesson code itself)' if lesson else ''}")
    c.say(f"  (every command's output: {os.path.relpath(c.log_path, ROOT)})")
    try:
        region_list = read_regions(d, region_files(d))
    except regions.RegionError as err:
        c.say(f"{err}\nthe exercise markers are broken: put back the lines // ---- exercise NN.N ... ----")
        return 1
    if not plan.own({r.ex for rs in region_list.values() for r in rs}):
        c.say(f"no exercise regions of chapter {n} in {rel}: is it chapter {n}'s code?")
        return 2
    c.say("")
    c.say("exercises (the PTX of every file that holds one: no GPU needed)")
    c.ptx_part(region_list)
    if not have_gpu():
        c.say("")
        if c.failed:
            c.say("FAILED (the PTX part; the GPU part needs an NVIDIA GPU, and there is none here)")
            return 1
        c.say("the PTX part passed. The rest (correctness, racecheck, speed) needs an NVIDIA GPU: there is none here.")
        return 3
    c.say("")
    c.say(f"the program (on {gpu_name()})")
    progs = {label: c.build(label, knobs) for label, knobs, _ in plan.builds}
    if progs[""] is None:
        c.say("\nFAILED")
        return 1
    if plan.gemm:
        c.names = program_names(progs[""])
    c.gpu_part(progs)
    ran = [k for k in plan.kernels if k in c.speed]
    if ran:
        times, note = lesson_times(plan, handout, ran)
        for k in ran:
            if k in times and note:
                c.row("speed", "-", f"{k}: {c.speed[k]:.3f} ms, the lesson kernel {times[k]:.3f} ms ({note}): "
                                    f"{100 * times[k] / c.speed[k]:.1f}%")
            else:
                c.row("speed", "-", f"{k}: {c.speed[k]:.3f} ms; no lesson time to compare with")
    c.say("")
    c.say("FAILED" if c.failed else "PASSED")
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
