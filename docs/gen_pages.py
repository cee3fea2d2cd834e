#!/usr/bin/env python3
"""Fill the pages from the committed data: make tables (and make docs) run it.

One program fills every marked part of the Markdown pages from the
committed data (a figure typed in the prose without a marker is checked by
review instead; docs/measuring.md says which); --check and the page tests
fail where a page differs from what its data make:

- the tables between a pair of markers, from the results CSVs
  (docs/results/) and from the chapters themselves;
- the figures quoted in a sentence, the listings of code, inline;
- the diff pages, docs/diffs/diff-NN.md (and -tc.md, and -NAME_tc.md for a step after a chapter's tensor-core lesson).

    python3 docs/gen_pages.py             rewrite the pages in place
    python3 docs/gen_pages.py --check     exit 1 if any page differs from what its data make
    python3 docs/gen_pages.py PAGE        one page's figures and listings filled, on stdout

Tables. A page asks for one with a pair of markers:

    <!-- results-table: docs/results/h100.csv chapter=01_naive m=4096 -->
    (generated lines)
    <!-- end results-table -->

Filters (all optional): chapter=, kernel=, m=, has= (rows whose knobs
contain the text, or one of several separated by '|': the solution patch
that built them, in the answers file), lacks= (rows whose knobs contain
none of them). Rows keep the CSV's order; "speedup" is over the first row
(the parent chapter's kernel, in a chapter's own table) when both have the
same size; speedup=no leaves the column out (for sweeps, which are not a
progression), and speedup=size takes it over the first row of each size
instead. line=tc keeps the tensor-core line's rows (kernels named *_tc,
and cublas_bf16), and without it a table keeps the FP32 line's.
unique=kernel keeps only the first row of each kernel name (its own
chapter's), and exclude=NAME[,NAME...] drops kernels: together they make
the one-row-per-step overview.

Demonstrations that are not a GEMM (chapters 04 and 05) use demo-table:

    <!-- demo-table: docs/results/h100.csv chapter=05_cooperative_grid prefix=two_stage_ m=1000 n=262144 has=grid=1056 per=iteration -->

prefix= keeps kernels whose name starts with it, has= rows whose knobs
contain the text, m= and n= the counts; "per" names what m counts, and the
table shows the median time divided by m, and the speedup over the first
row (n is the problem size: elements, or 0 where there is none).

Profiler metrics (tests/profile.sh) are asked for the same way, one row per
metric and one column per kernel:

    <!-- metrics-table: docs/results/h100-ncu.csv chapter=01_naive -->

size= names the problem size the profile ran at, for the caption (default:
"the default size"); only=METRIC[,METRIC...] keeps those rows;
kernels=LABEL[,LABEL...] keeps those columns, label=TEXT the columns whose
label contains the text; without kernels=, line=tc keeps the tensor-core
line's columns and no line= the FP32 line's, as in results-table.

The cost of tracing (make traces): <!-- trace-cost-table: docs/results/h100-trace.csv -->.
From the chapters themselves: the hardware each needs (<!-- hardware-table -->,
from MIN_CC and MIN_CC_FOR), what runs where (<!-- runs-where-table -->: per
compute capability, whether it runs here, is built by make test-gpu for that
ARCH (ARCH_BUILDS in tests/lib.sh) or neither, and the settings that change
there), each chapter's parent and its kernel's diff against the parent's
(<!-- lineage-table -->; the diffs are written to docs/diffs/), a chapter
page's exercise regions (<!-- exercise-table -->) and its links to the
previous and next chapters (<!-- chapter-nav -->). Each ends with
<!-- end NAME --> (<!-- end chapter-nav -->). Captions are <em>...</em>:
Doxygen leaves _..._ literal when it ends in ")." as ours do.

Figures. A figure quoted in the prose is marked with an HTML comment
before it and an end marker after it; both are invisible on the rendered
page:

    took <!-- value: docs/results/h100.csv chapter=06_clusters_dsmem
    kernel=cluster_leader m=4096 show=ms_median fmt=.3f -->3.817<!-- end -->&nbsp;ms

(the comment may not span lines; it is wrapped here only to fit. A space
after the end marker is written as &nbsp;, since Doxygen drops whitespace
after a comment.) Filters are COLUMN=VALUE pairs matched exactly against
the CSV's header columns (lines starting with # are the file's notes),
plus has=TEXT / lacks=TEXT on the knobs column. Values with spaces are
quoted shell-style. The filters must select exactly one row; anything else
is an error that names the marker. show=COLUMN prints that row's column;
scale=X multiplies it and div=COLUMN divides it by another column of the
row. With vs=KERNEL a second row is taken with the same filters but that
kernel (and vs.COLUMN=VALUE overrides), from the same CSV or from
vsfile=PATH, and show= compares the two on col= (default ms_median, or
value in the profiler CSVs):
    speedup  vs / this          ratio  this / vs
    less     (1 - this/vs)*100  more   (this/vs - 1)*100
fmt= is a Python format spec: default the CSV's text for a column, .2f for
speedup and ratio, .0f for less and more. Every figure (a Markdown image
alone on its line) must have a visible caption, a blank line and then an
<em>...</em> line, since Doxygen shows the image's own text only as alt text.

Listings. Code is quoted the same way, so that a page shows it on a Git
host as well as in Doxygen (which would otherwise need \\snippet, shown
there as text):

    <!-- listing: 02_double_buffer/kernel.cu kernel -->
    (a fenced code block, generated)
    <!-- end listing -->

takes the lines between the two `// [kernel]` lines of the file, leaving
out the marker lines of other listings inside; without a name, the whole
file, as plain text.
"""
import csv
import glob
import os
import re
import shlex
import subprocess
import sys

MARK = re.compile(r"<!-- value: (?P<spec>[^>]*?) -->(?P<text>.*?)<!-- end -->")
COMPARE = {
    "speedup": (lambda a, b: b / a, ".2f"),
    "ratio": (lambda a, b: a / b, ".2f"),
    "less": (lambda a, b: (1 - a / b) * 100, ".0f"),
    "more": (lambda a, b: (a / b - 1) * 100, ".0f"),
}
_csv_cache = {}


class MarkerError(Exception):
    pass


def rows_of(path):
    if path not in _csv_cache:
        try:
            with open(path, newline="") as f:  # lines starting with '#' say where the rows come from
                _csv_cache[path] = list(csv.DictReader(l for l in f if not l.startswith("#")))
        except OSError as e:
            raise MarkerError(f"cannot read {path}: {e.strerror}")
    return _csv_cache[path]


def knob_match(knobs, text):
    return any(t in knobs for t in text.split("|"))


def select(path, filters):
    rows = rows_of(path)
    header = rows[0].keys() if rows else []
    for col in filters:
        if col not in ("has", "lacks") and col not in header:
            raise MarkerError(f"{path} has no column '{col}'")
    found = []
    for r in rows:
        ok = True
        for col, want in filters.items():
            if col == "has":
                ok = knob_match(r.get("knobs", ""), want)
            elif col == "lacks":
                ok = not knob_match(r.get("knobs", ""), want)
            else:
                ok = r[col] == want
            if not ok:
                break
        if ok:
            found.append(r)
    if len(found) != 1:
        what = " ".join(f"{k}={v}" for k, v in filters.items())
        raise MarkerError(f"{len(found)} rows of {path} match {what} (need exactly one)")
    return found[0]


def number(row, col):
    try:
        return float(row[col])
    except (KeyError, ValueError):
        raise MarkerError(f"column '{col}' of the row is not a number: {row.get(col)!r}")


def value(spec):
    words = shlex.split(spec)
    if not words:
        raise MarkerError("no CSV named")
    path, opts, filters, vs_over = words[0], {}, {}, {}
    for w in words[1:]:
        if "=" not in w:
            raise MarkerError(f"'{w}' is not KEY=VALUE")
        k, v = w.split("=", 1)
        if k in ("show", "col", "vs", "vsfile", "scale", "div", "fmt"):
            opts[k] = v
        elif k.startswith("vs."):
            vs_over[k[3:]] = v
        else:
            filters[k] = v
    show = opts.get("show")
    if not show:
        raise MarkerError("no show=")
    row = select(path, filters)
    if "vs" in opts:
        if show not in COMPARE:
            raise MarkerError(f"show={show} with vs=: use one of {', '.join(COMPARE)}")
        other = dict(filters, kernel=opts["vs"], **vs_over)
        col = opts.get("col", "value" if "value" in row and "ms_median" not in row else "ms_median")
        fn, fmt = COMPARE[show]
        x = fn(number(row, col), number(select(opts.get("vsfile", path), other), col))
    elif show in COMPARE:
        raise MarkerError(f"show={show} needs vs=KERNEL")
    else:
        if show not in row:
            raise MarkerError(f"{path} has no column '{show}'")
        if "fmt" not in opts and "scale" not in opts and "div" not in opts:
            return row[show]
        x, fmt = number(row, show), "g"
        if "scale" in opts:
            x *= float(opts["scale"])
        if "div" in opts:
            x /= number(row, opts["div"])
    return format(x, opts.get("fmt", fmt))


LISTING = re.compile(r"^(?P<indent> *)<!-- listing: (?P<file>\S+)(?: (?P<tag>[^>]*?))? -->\n(?P<body>.*?)^ *<!-- end listing -->",
                     re.S | re.M)
MARKER_LINE = re.compile(r"^\s*// \[[^]]+\]\s*$")
FENCE = {".cu": "cpp", ".cuh": "cpp", ".h": "cpp", ".c": "c", ".sh": "bash", ".mk": "makefile"}


def listing(path, tag):
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise MarkerError(f"cannot read {path}: {e.strerror}")
    if tag is None:
        body, lang = lines, ""
        if body and body[-1] == "":
            body = body[:-1]
    else:
        marks = [i for i, l in enumerate(lines) if l.strip() == f"// [{tag}]"]
        if len(marks) != 2:
            raise MarkerError(f"{path} has {len(marks)} '// [{tag}]' lines (need two)")
        body = [l for l in lines[marks[0] + 1:marks[1]] if not MARKER_LINE.match(l)]
        lang = next((v for k, v in FENCE.items() if path.endswith(k)), "")
    return "```" + lang + "\n" + "\n".join(body) + "\n```\n"


def fill(text, name):
    errors = []

    def code(m):
        try:
            tag = f" {m.group('tag')}" if m.group("tag") else ""
            ind = m.group("indent")  # inside a list item, the block is indented with it
            body = "".join(ind + l if l else l for l in listing(m.group("file"), m.group("tag")).splitlines(True))
            return f"{ind}<!-- listing: {m.group('file')}{tag} -->\n{body}{ind}<!-- end listing -->"
        except MarkerError as e:
            errors.append(f"{name}:{text.count(chr(10), 0, m.start()) + 1}: listing marker: {e}")
            return m.group(0)

    text = LISTING.sub(code, text)

    # Doxygen shows a Markdown image's caption only as its alt text: every
    # figure needs its caption as a visible line under it.
    lines = text.split("\n")
    for i, l in enumerate(lines):
        if re.match(r"^!\[.*\]\(.*\)\s*$", l) and not (
                i + 2 < len(lines) and lines[i + 1].strip() == "" and lines[i + 2].startswith("<em>")):
            errors.append(f"{name}:{i + 1}: a figure without a visible caption (a blank line, then <em>...</em>)")

    def one(m):
        # A handout (make handout) leaves out the questions' measured
        # answers; a figure a question quotes from them stays as filled.
        try:
            src = shlex.split(m.group("spec"))[0] if m.group("spec").strip() else ""
            if "-answers" in src and not os.path.exists(src) and os.path.exists("HANDOUT"):
                return m.group(0)
            return f"<!-- value: {m.group('spec')} -->{value(m.group('spec'))}<!-- end -->"
        except (MarkerError, ValueError, ZeroDivisionError) as e:
            line = text.count("\n", 0, m.start()) + 1
            errors.append(f"{name}:{line}: value marker: {e}")
            return m.group(0)

    out = MARK.sub(one, text)
    # Doxygen drops the whitespace after an HTML comment ("3.8<!-- end --> ms"
    # shows as "3.8ms"): the space after an end marker is a no-break space.
    # (A line break after it is kept.)
    out = re.sub(r"<!-- end --> ", "<!-- end -->&nbsp;", out)
    # an opening without its end (or a broken one) would silently show stale text
    opened = text.count("<!-- value:")
    if opened != len(MARK.findall(text)):
        errors.append(f"{name}: {opened - len(MARK.findall(text))} value marker(s) without '<!-- end -->' on the same line")
    return out, errors


# ---------------------------------------------------------------- the tables

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def chapters():
    return sorted(d for d in os.listdir(".") if re.match(r"^[0-9][0-9]_", d) and os.path.isfile(f"{d}/Makefile"))


def mk_var(ch, name):
    m = re.search(rf"^{name} *:= *(.*)$", open(f"{ch}/Makefile").read(), re.M)
    return m.group(1).strip() if m else ""


def mk_title(ch):
    first = open(f"{ch}/Makefile").readline()
    m = re.match(r"^# Chapter [0-9]*: *(.*)", first)
    t = re.sub(r"\.$", "", m.group(1).rstrip("\n")) if m else ""
    return t[:1].upper() + t[1:]


def make_print(ch, *args):
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", ch] + list(args), stdout=subprocess.PIPE,
                          text=True).stdout.strip()


def make_vars(ch, arch, *names):
    """Make variables of a chapter at an ARCH, one make call: {name: value}."""
    out = subprocess.run(["make", "-s", "--no-print-directory", "-C", ch, f"ARCH={arch}"] + [f"print-{n}" for n in names],
                         stdout=subprocess.PIPE, text=True).stdout.split("\n")
    return {n: v.strip() for n, v in zip(names, out)}


def hardware_table():
    out = ["| ch. | chapter | needs compute capability | for | e.g. |", "|---|---|---|---|---|"]
    eg = {"75": "Turing (T4, RTX 20) and newer", "80": "Ampere (A100, RTX 30), Ada (L4, RTX 40), Hopper",
          "90": "Hopper (H100, H200)"}
    for ch in chapters():
        cc, why = mk_var(ch, "MIN_CC"), mk_var(ch, "MIN_CC_FOR")
        out.append(f"| {ch[:2]} | [{mk_title(ch)}](../{ch}/README.md) | {cc[:-1]}.{cc[-1]} (`sm_{cc}`) | {why} | "
                   f"{eg.get(cc, '')} |")
    return out


def arch_builds():
    out = subprocess.run(["bash", "-c", '. tests/lib.sh; printf "%s\\n" "${ARCH_BUILDS[@]}"'], stdout=subprocess.PIPE,
                         text=True).stdout.split()
    return set(out)


def runs_where_table():
    groups = [("7.5", ["sm_75"], "T4, RTX 20"), ("8.0, 8.7", ["sm_80", "sm_87"], "A100, Jetson Orin"),
              ("8.6, 8.9", ["sm_86", "sm_89"], "RTX 30, RTX 40, A10, L4"), ("9.0", ["sm_90a"], "H100, H200"),
              ("10.0", ["sm_100a"], "B200"), ("12.0", ["sm_120a"], "RTX 50")]
    builds = arch_builds()
    h200 = open("docs/results/h200.csv").read() if os.path.exists("docs/results/h200.csv") else ""
    # the mma.sync path's measurements (tests/mma_paths.sh): the builds whose rows name the chapter
    mma = {}
    for f in sorted(glob.glob("docs/results/*-mma.csv")):
        for r in csv.DictReader(l for l in open(f) if not l.startswith("#")):
            mma.setdefault((r["chapter"], r["build"]), set()).add(r["gpu"].replace("NVIDIA ", "").split()[0])
    out = ["| ch. |" + "".join(f" {g} ({eg}) |" for g, _, eg in groups), "|---|" + "---|" * len(groups)]
    for ch in chapters():
        mn = int(mk_var(ch, "MIN_CC"))
        tc = os.path.exists(f"{ch}/kernel_tc.cu")
        at = {a: make_vars(ch, a, "KNOB_DEFS", "TOO_BIG") for _, arches, _ in groups for a in arches[:1]
              if int(re.sub(r"\D", "", a)) >= mn}
        base = f" {at['sm_90a']['KNOB_DEFS']} "
        row = f"| [{ch[:2]}](../{ch}/README.md) |"
        for _, arches, _ in groups:
            a = arches[0]
            if int(re.sub(r"\D", "", a)) < mn:
                row += " - |"
                continue
            if a == "sm_90a":
                cell = "**runs** (H100" + (", H200" if f",{ch}," in h200 else "") + ")"
                if tc:
                    cell += "; tensor cores: wgmma" + (", and mma.sync (`TC_MMA=mma_sync`, run on " + \
                                                      ", ".join(sorted(mma[(ch, "mma_sync")])) + ")"
                                                      if (ch, "mma_sync") in mma else "")
            else:
                cell = "not built here"
                for x in arches:
                    if f"{ch}:{x}" in builds:
                        cell = f"built ({x}), not run"
                if (ch, a) in mma:
                    cell = f"built ({a}); its PTX **runs** on the " + ", ".join(sorted(mma[(ch, a)]))
                if tc and a != "sm_75":
                    cell += "; tensor cores: mma.sync"
            knobs = ""
            for d in at[a]["KNOB_DEFS"].split():
                if f" {d} " not in base:
                    knobs += " " + d[2:]
            big = at[a]["TOO_BIG"]
            if knobs:
                cell += f"; `{knobs.strip()}`"
            if big:
                cell += "; without " + ", ".join(f"`{b}`" for b in big.split())
            row += f" {cell} |"
        out.append(row)
    return out


def make_diff(ch, target):
    """`make -C ch target` (diff, diff-tc, diff-STEP), the one diff engine: (text, added, removed)."""
    d = subprocess.run(["make", "-s", "--no-print-directory", "-C", ch, target], stdout=subprocess.PIPE, text=True,
                       check=True).stdout.rstrip("\n")
    lines = d.split("\n") if d else []
    return d, sum(1 for l in lines if re.match(r"^\+[^+]", l)), sum(1 for l in lines if re.match(r"^-[^-]", l))


def in_chapter(ch, f):
    """A file as the chapter's Makefile names it (../04_persistent/x.cu, kernel_tc.cu), from the top."""
    return f[3:] if f.startswith("../") else f"{ch}/{f}"


def anchor(name):
    """A page's id for Doxygen (\\ref NAME, (#NAME)) that a Git host does not
    show: an empty HTML anchor on the line under the title. (A title's own
    "{#NAME}" is shown as text on a Git host; Doxygen 1.9 takes the title
    from the first line only when that line is the heading.)"""
    return f'<a id="{name}"></a>'


def lineage():
    """The lineage table, and the diff pages {name: text}: each what make diff,
    make diff-tc or make diff-STEP prints, the parents and steps as the
    chapter's Makefile names them (PARENT, TC_PARENT_FILE, TC_STEPS)."""
    out = ["| ch. | chapter | builds on | its kernel.cu against the parent's |", "|---|---|---|---|"]
    pages = {}
    for ch in chapters():
        n, title = ch[:2], mk_title(ch)
        v = make_vars(ch, "sm_90a", "PARENT", "TC_PARENT_FILE", "TC_STEPS")
        parent = v["PARENT"]
        if not parent:
            out.append(f"| {n} | [{title}](../{ch}/README.md) | - | a starting point |")
            continue
        d, add, rm = make_diff(ch, "diff")
        out.append(f"| {n} | [{title}](../{ch}/README.md) | {parent[:2]} | [+{add} -{rm} lines](diffs/diff-{n}.md) "
                   f"(`make diff-{n}`) |")
        pages[f"diff-{n}.md"] = (f"# Chapter {n} against chapter {parent[:2]}\n{anchor('diff' + n)}\n\n"
                                 f"What `{ch}/kernel.cu` adds to `{parent}/kernel.cu`: {add} lines added, {rm} removed.\n"
                                 f"`make diff-{n}` prints the same diff. Generated by `make tables`.\n\n```\n{d}\n```\n")
        for step in v["TC_STEPS"].split():
            f, sparent = step.split(":")
            name = f[:-3]
            d, add, rm = make_diff(ch, f"diff-{name}")
            pages[f"diff-{n}-{name}.md"] = (
                f"# Chapter {n}: {name}.cu against {os.path.basename(sparent)}\n"
                f"{anchor('diff' + n + name.replace('_', ''))}\n\n"
                f"What `{ch}/{f}` adds to `{in_chapter(ch, sparent)}`: {add} lines added, {rm} removed.\n"
                f"`make -C {ch} diff-{name}` prints the same diff. Generated by `make tables`.\n\n```\n{d}\n```\n")
        pfile = in_chapter(ch, v["TC_PARENT_FILE"])
        if not (os.path.exists(f"{ch}/kernel_tc.cu") and os.path.exists(pfile)):
            continue
        d, add, rm = make_diff(ch, "diff-tc")
        pages[f"diff-{n}-tc.md"] = (
            f"# Chapter {n} against its parent: the tensor-core kernels\n{anchor('diff' + n + 'tc')}\n\n"
            f"What `{ch}/kernel_tc.cu` adds to `{pfile}`: {add} lines added, {rm} removed.\n"
            f"`make -C {ch} diff-tc` prints the same diff. Generated by `make tables`.\n\n```\n{d}\n```\n")
    return out, pages


def chapter_nav(ch):
    cs = chapters()
    i = cs.index(ch)
    title = lambda c: re.sub(r"^# ", "", open(f"{c}/README.md").readline().rstrip("\n"))
    s = f"[&larr; {title(cs[i - 1])}](../{cs[i - 1]}/README.md) &middot; " if i > 0 else ""
    s += "[Contents](../docs/mainpage.md)"
    if i + 1 < len(cs):
        s += f" &middot; [{title(cs[i + 1])} &rarr;](../{cs[i + 1]}/README.md)"
    return [s]


def exercise_table(ch):
    files = sorted(f for f in os.listdir(ch) if f.endswith((".cu", ".cuh", ".c", ".h")) and os.path.isfile(f"{ch}/{f}")
                   and "// ---- exercise " in open(f"{ch}/{f}", errors="replace").read())
    if not files:
        return [f"<em>No exercise regions in `{ch}`.</em>"]
    lst = subprocess.run(["awk", "-v", "mode=list", "-f", "../common/regions.awk"] + files, cwd=ch,
                         stdout=subprocess.PIPE, text=True, check=True).stdout.splitlines()
    rows = sorted((l.split("\t") for l in lst), key=lambda r: r[2])  # stable, by exercise
    order, title, hint, where = [], {}, {}, {}
    for r in rows:
        if r[2] not in title:
            order.append(r[2])
            title[r[2]], hint[r[2]], where[r[2]] = r[3], r[5], f"`{r[0]}`"
        elif f"`{r[0]}`" not in where[r[2]]:
            where[r[2]] += f", `{r[0]}`"
    out = ["| exercise | what to write | where | hint |", "|---|---|---|---|"]
    for e in order:
        note = "" if e[:2] == ch[:2] else (f" (chapter {e[:2]}'s exercise, in this chapter's copy of that code: "
                                           "stripped with it in a handout)")
        out.append(f"| {e} | {title[e]}{note} | {where[e]} | {hint[e]} |")
    return out


def made_by(file):
    for key, script in (("-answers", "tests/classroom/answers.sh"), ("-warps", "tests/warps_sweep.sh"),
                        ("-storer", "tests/storer_sweep.sh"), ("-tc-shapes", "tests/tc_shapes.sh"),
                        ("-shapes", "tests/shapes_sweep.sh")):
        if key in file:
            return script
    return "make bench"


def several(caption, nc, cl, file):
    """A caption names one commit and date (the first row's); where the rows
    come from several commits, it names them all and points to the file."""
    if nc > 1:
        caption = re.sub(r", commit [^;]*;", f", commits {cl} (each row's commit and date in `{file}`);", caption,
                         count=1)
    return caption


def table_spec(spec):
    """A table marker's words: the CSV, then key=value filters."""
    file, *words = spec.split()
    return file, dict(w.partition("=")[::2] for w in words)


def raw_lines(file):
    """The data lines of a CSV (its '#' notes and header dropped), or None when it has none."""
    try:
        with open(file) as f:
            lines = [l for l in f.read().split("\n") if not l.startswith("#")]
    except OSError:
        return None
    if lines == [""]:
        return None
    return [l for l in lines[1:] if l != ""]


def results_table(spec):
    file, fl = table_spec(spec)
    fsp, fpersize = fl.get("speedup", "") != "no", fl.get("speedup") == "size"
    funiq, ftc = fl.get("unique") == "kernel", fl.get("line") == "tc"
    lines = raw_lines(file)
    if lines is None:
        return [f"<em>No measurements yet: run `make bench` on a GPU to create `{file}`.</em>"]
    out, rows, seen, base, cseen, cl, nc = [], 0, set(), {}, set(), "", 0
    first = firstsize = caption = None
    for line in lines:
        if '"' in line:
            raise SystemExit(f"gen_pages: quoted CSV field in {file}")
        f = [None] + line.split(",")
        if len(f) - 1 < 17:
            continue
        if fl.get("chapter") and f[6] != fl["chapter"]:
            continue
        if fl.get("kernel") and f[7] != fl["kernel"]:
            continue
        if fl.get("m") and f[8] != fl["m"]:
            continue
        if fl.get("has") and not knob_match(f[11], fl["has"]):
            continue
        if fl.get("lacks") and knob_match(f[11], fl["lacks"]):
            continue
        if fl.get("exclude") and f",{f[7]}," in f",{fl['exclude']},":
            continue
        if (f[7].endswith("_tc") or f[7] == "cublas_bf16") != ftc:
            continue
        if funiq and f[7] in seen:
            continue
        seen.add(f[7])
        if f[4] not in cseen:
            cseen.add(f[4])
            cl += (", " if cl else "") + f[4]
            nc += 1
        if rows == 0:
            caption = f"Measured on {f[1]}, driver {f[2]}, CUDA {f[3]}, commit {f[4]}, {f[5]}; from `{file}` (`{made_by(file)}`)."
            if funiq:
                caption = (f"Measured on {f[1]}, driver {f[2]}, CUDA {f[3]}; each row from its own chapter's run "
                           f"(commit and date in `{file}`, `make bench`); % of cuBLAS is against cuBLAS in that same run.")
            out.append("| kernel | knobs | M x N x K | median ms (min - max) | TFLOP/s | % of cuBLAS |"
                       + (f" speedup vs {f[7]} |" if fsp else "") + " verified |")
            first, firstsize = float(f[12]), f"{f[8]}x{f[9]}x{f[10]}"
            out.append("|---|---|---|---|---|---|" + ("---|" if fsp else "") + "---|")
        size = f"{f[8]}x{f[9]}x{f[10]}"
        ms = float(f[12])
        if fpersize:
            sp = "-" if size not in base or ms == 0 else "%.2fx" % (base[size] / ms)
        else:
            sp = "-" if rows == 0 or ms == 0 or firstsize != size else "%.2fx" % (first / ms)
        if size not in base:
            base[size] = ms
        tf = "-" if f[15] == "NA" else "%.1f" % float(f[15])
        pc = "-" if f[16] == "NA" else "%.1f%%" % float(f[16])
        out.append("| %s | `%s` | %sx%sx%s | %.3f (%.3f - %.3f) | %s | %s |%s %s |" % (
            f[7], f[11], f[8], f[9], f[10], ms, float(f[13]), float(f[14]), tf, pc, (f" {sp} |" if fsp else ""), f[17]))
        rows += 1
    if rows == 0:
        out.append(f"<em>No rows in `{file}` match `{spec}`.</em>")
    else:
        out += ["", f"<em>{several(caption, nc, cl, file)}</em>"]
    return out


def demo_table(spec):
    file, fl = table_spec(spec)
    per = fl.get("per", "item")
    lines = raw_lines(file)
    if lines is None:
        return [f"<em>No measurements yet: run `make bench` on a GPU to create `{file}`.</em>"]
    out, rows, first, caption = [], 0, None, None
    for line in lines:
        f = [None] + line.split(",")
        if len(f) - 1 < 17:
            continue
        if fl.get("chapter") and f[6] != fl["chapter"]:
            continue
        if fl.get("prefix") and not f[7].startswith(fl["prefix"]):
            continue
        if fl.get("m") and f[8] != fl["m"]:
            continue
        if fl.get("n") and f[9] != fl["n"]:
            continue
        if fl.get("has") and fl["has"] not in f[11]:
            continue
        if rows == 0:
            caption = f"Measured on {f[1]}, driver {f[2]}, CUDA {f[3]}, commit {f[4]}, {f[5]}; from `{file}` (`{made_by(file)}`)."
            out.append(f"| way | settings | {per}{'es' if re.search(r'(s|sh|ch|x)$', per) else 's'} (count) | n | "
                       f"median ms (min - max) | us per {per} | speedup vs first row | verified |")
            out.append("|---|---|---|---|---|---|---|---|")
            first = float(f[12])
        ms = float(f[12])
        out.append("| %s | `%s` | %s | %s | %.4f (%.4f - %.4f) | %.3f | %s | %s |" % (
            f[7], f[11], f[8], f[9], ms, float(f[13]), float(f[14]), 1000.0 * ms / float(f[8]),
            "-" if rows == 0 else "%.2fx" % (first / ms), f[17]))
        rows += 1
    if rows == 0:
        out.append(f"<em>No rows in `{file}` match `{spec}`.</em>")
    else:
        out += ["", f"<em>{caption}</em>"]
    return out


METRIC_LABELS = {
    "gpu__time_duration.sum": "duration",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": "SM throughput",
    "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active": "FMA pipe busy",
    "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active": "tensor pipe busy",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue slots used",
    "smsp__inst_executed.sum": "warp instructions",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "warps resident",
    "launch__registers_per_thread": "registers",
    "smsp__average_warp_latency_per_inst_issued.ratio": "cycles between issues, per warp",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "shared-store bank conflicts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "shared-load bank conflicts",
    "lts__t_sectors_op_read.sum": "L2 sectors read",
    "lts__t_sectors_srcunit_tex_op_read.sum": "L2 sectors read by SMs",
    "l1tex__m_xbar2l1tex_read_bytes.sum": "bytes from L2 into SMs",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum": "FFMAs (all threads)",
    "sm__sass_inst_executed_op_shared_ld.sum": "shared-memory load instructions",
    "lts__t_bytes.sum": "L2 bytes",
    "lts__t_sector_hit_rate.pct": "L2 hit rate",
    "dram__bytes_read.sum": "DRAM bytes read",
    "sass__compute_loop_instructions": "compute loop: instructions per K step (one warp)",
    "sass__compute_loop_integer_instructions": "compute loop: of which integer arithmetic",
    "sass__compute_loop_ffma": "compute loop: FFMAs",
    "sass__compute_loop_lds": "compute loop: shared-memory loads",
    "sass__compute_loop_ffma_moved": "compute loop: FFMAs whose sum goes to another register",
    "sass__compute_loop_lds_to_use_median": "compute loop: instructions from a load to its first use (median)",
    "sass__compute_loop_samples_selected": "compute loop samples: issuing",
    "sass__compute_loop_samples_not_selected": "compute loop samples: ready, another warp issued",
    "sass__compute_loop_samples_short_sb": "compute loop samples: waiting for shared memory (short scoreboard)",
    "sass__compute_loop_samples_no_inst": "compute loop samples: waiting for an instruction fetch",
    "sass__compute_loop_samples_dispatch": "compute loop samples: dispatch stall",
    "sass__compute_loop_samples_long_sb": "compute loop samples: waiting for a barrier poll or global memory (long scoreboard)",
    "sass__compute_loop_samples_wait": "compute loop samples: fixed-latency wait",
    "sass__copy_loop_instructions": "copy loop: instructions per K step (one warp)",
    "sass__copy_loop_integer_instructions": "copy loop: of which integer arithmetic",
}


def metric_label(m, u):
    """A metric's row label, in words, with its unit."""
    if m == "kernel":
        return "kernel that ran"
    if m in METRIC_LABELS:
        s = METRIC_LABELS[m]
    elif re.match(r"^smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio$", m):
        s = re.sub(r"_per_issue_active\.ratio$", "", re.sub(r"^smsp__average_warps_issue_stalled_", "", m, count=1),
                   count=1)
        return "stalled: " + s.replace("_", " ") + " (warps per issue)"
    else:
        s = m
    if u == "%":
        return s + " (%)"
    if u in ("ns", "byte", "sector", "cycle"):
        return f"{s} ({u})"
    return s


def metrics_table(spec):
    file, fl = table_spec(spec)
    fsize = fl.get("size", "the default size")
    lines = raw_lines(file)
    if lines is None:
        return [f"<em>No profile yet: run `tests/profile.sh` on a GPU to create `{file}`.</em>"]
    kname, mname, unit, val = [], [], {}, {}
    gpu = commit = ""
    for line in lines:
        f = [None] + line.split(",")
        if len(f) - 1 < 7 or (fl.get("chapter") and f[3] != fl["chapter"]):
            continue
        if fl.get("only") and f",{f[5]}," not in f",{fl['only']},":
            continue
        if fl.get("kernels") and f",{f[4]}," not in f",{fl['kernels']},":
            continue
        if fl.get("label") and fl["label"] not in f[4]:
            continue
        # without kernels=, the columns of one line: tensor cores with line=tc, else FP32
        istc = re.search(r"_tc(\[|$)", f[4]) is not None or f[4] == "cublas_bf16"
        if not fl.get("kernels") and (fl.get("line") == "tc") != istc:
            continue
        gpu, commit = f[1], f[2]
        if f[4] not in kname:
            kname.append(f[4])
        if f[5] not in mname:
            mname.append(f[5])
            unit[f[5]] = f[6]
        v = f[7]
        if f[5] == "kernel":  # the whole rest of the line: a kernel name like "void gemm_tma<2, 1>" keeps its comma
            v = line.split(",", 6)[6].replace('"', "")
        val[(f[4], f[5])] = v
    if not kname:
        return [f"<em>No rows in `{file}` match `{spec}`.</em>"]
    out = ["| metric |" + "".join(" " + re.sub(r"\]$", "", k.replace("[", " ", 1)) + " |" for k in kname),
           "|---|" + "---|" * len(kname)]
    legend = ""
    for m in mname:
        row = f"| {metric_label(m, unit[m])} |"
        if m != "kernel":
            legend += ("; " if legend else "") + f"{metric_label(m, unit[m])}: `{m}`"
        for k in kname:
            cell = val.get((k, m), "-")
            if m == "kernel" and len(cell) > 20:  # the cuBLAS kernel name is ~120 characters
                cell = cell[:10] + "..." + cell[-7:]
            row += f" {cell} |"
        out.append(row)
    out.append("")
    if "-sass" in file:
        legend = ("each row sums, over the SASS instructions of one loop, the per-instruction counts or warp-state "
                  "samples of the source view (the SourceCounters section); the script says how it finds the loops")
    script = ("tests/classroom/answers.sh" if "-answers" in file else "tests/shapes_sweep.sh" if "-shapes" in file else
              "tests/storer_sweep.sh" if "-storer" in file else "tests/sass_profile.sh" if "-sass" in file else
              "tests/profile.sh")
    out.append(f"<em>Nsight Compute on {gpu}, commit {commit}, one launch per kernel at {fsize}; from `{file}` "
               f"(`{script}`). Metrics: {legend}.</em>")
    return out


def trace_cost_table(spec):
    file = spec.strip()
    lines = raw_lines(file)
    if lines is None:
        return [f"<em>No measurements yet: run `make traces` on a GPU to create `{file}`.</em>"]
    out, rows, cseen, cl, nc, caption = [], 0, set(), "", 0, None
    for line in lines:
        f = [None] + line.split(",")
        if len(f) - 1 < 15:
            continue
        if f[4] not in cseen:
            cseen.add(f[4])
            cl += (", " if cl else "") + f[4]
            nc += 1
        if rows == 0:
            caption = (f"Measured on {f[1]}, driver {f[2]}, CUDA {f[3]}, commit {f[4]}, {f[5]}; one run of each build; "
                       f"from `{file}` (`make traces`).")
            out.append("| chapter | kernel | M x N x K | default build, median ms | TRACE=1 build, unarmed | "
                       "one traced launch | steps recorded (SMs 0-1) |")
            out.append("|---|---|---|---|---|---|---|")
        rows += 1
        a, b, c = float(f[13]), float(f[14]), float(f[15])
        out.append("| %s | %s | %sx%sx%s | %.3f | %.3f (%+.1f%%) | %.3f (%+.1f%%) | %s |" % (
            f[6], f[7], f[8], f[9], f[10], a, b, 100 * (b / a - 1), c, 100 * (c / a - 1), f[11]))
    if rows == 0:
        out.append(f"<em>No rows in `{file}`.</em>")
    else:
        out += ["", f"<em>{several(caption, nc, cl, file)}</em>"]
    return out


BLOCK = re.compile(r"<!-- (?:(results|metrics|demo|trace-cost|mma)-table: (.*?) -->|(hardware|runs-where|lineage|exercise)-table -->|(chapter)-nav -->)")
END = re.compile(r"<!-- end (results|metrics|demo|hardware|runs-where|lineage|trace-cost|exercise|mma)-table -->|<!-- end chapter-nav -->")


class Context:
    """What the tables from the chapters are made of, made once per run."""

    def __init__(self):
        self._hardware = self._runs = self._lineage = None

    def hardware(self):
        if self._hardware is None:
            self._hardware = hardware_table()
        return self._hardware

    def runs_where(self):
        if self._runs is None:
            self._runs = runs_where_table()
        return self._runs

    def lineage(self):
        if self._lineage is None:
            self._lineage = lineage()
        return self._lineage


def render(page, text, ctx):
    """The page with every table between its markers made again."""
    out, skipping, opened = [], False, 0
    ch = page[:-len("/README.md")] if re.match(r"^[0-9][0-9]_[^/]*/README\.md$", page) else None
    relink = (lambda rows: [r.replace("](../", "](") for r in rows]) if page == "README.md" else (lambda rows: rows)
    lines = text.split("\n")
    for i, line in enumerate(lines, 1):
        if skipping:
            if BLOCK.search(line):  # the one before it never ended: its text would be dropped
                raise SystemExit(f"gen_pages: {page}:{opened}: a table marker without its end marker")
            if END.search(line):
                skipping = False
                out.append(line)
            continue
        m = BLOCK.search(line)
        if not m:
            out.append(line)
            continue
        out.append(line)
        opened = i
        kind, spec, fixed, nav = m.group(1), m.group(2), m.group(3), m.group(4)
        if nav:
            out += chapter_nav(ch) if ch else [""]
        elif fixed == "exercise":
            out += exercise_table(ch) if ch else [""]
        elif fixed == "lineage":
            out += ctx.lineage()[0]
        elif fixed == "hardware":
            out += relink(ctx.hardware())
        elif fixed == "runs-where":
            out += relink(ctx.runs_where())
        elif kind == "trace-cost":
            out += trace_cost_table(spec)
        elif kind == "metrics":
            out += metrics_table(spec)
        elif kind == "demo":
            out += demo_table(spec)
        else:
            out += results_table(spec)
        skipping = True
    if skipping:  # everything after it would be dropped
        raise SystemExit(f"gen_pages: {page}:{opened}: a table marker without its end marker")
    return "\n".join(out)


GENERATED = re.compile(r"<!-- ((results|metrics|demo|trace-cost|mma)-table:|(hardware|runs-where|lineage|exercise)-table|"
                       r"chapter-nav|value:|listing:)")


def pages():
    out = (["README.md"] + sorted(glob.glob("docs/*.md")) + sorted(glob.glob("[0-9][0-9]_*/README.md")) +
           sorted(glob.glob("[0-9][0-9]_*/NOTES.md")))
    return [p for p in out if os.path.isfile(p) and GENERATED.search(open(p).read())]


def main(argv):
    if len(argv) == 2 and argv[1] not in ("--check",):  # one page's figures and listings, on stdout
        text = open(argv[1]).read()
        out, errors = fill(text, argv[1])
        sys.stdout.write(out)
        for e in errors:
            print(e, file=sys.stderr)
        return 1 if errors else 0
    if len(argv) > 2:
        print("usage: gen_pages.py [--check | PAGE]", file=sys.stderr)
        return 2
    check = len(argv) == 2
    os.chdir(ROOT)
    ctx, status = Context(), 0
    for page in pages():
        text = open(page).read()
        out, errors = fill(render(page, text, ctx), page)
        for e in errors:
            print(e)
            status = 1
        if out != text:
            if check:
                print(f"{page}: its results tables or quoted figures differ from the CSVs (run make tables):")
                d = subprocess.run(["diff", page, "-"], input=out, stdout=subprocess.PIPE, text=True).stdout
                print("\n".join(d.split("\n")[:20]))
                status = 1
            else:
                with open(page, "w") as f:
                    f.write(out)
                print(f"updated {page}")
    diffs = ctx.lineage()[1]
    os.makedirs("docs/diffs", exist_ok=True)
    for name, text in sorted(diffs.items()):
        page = f"docs/diffs/{name}"
        old = open(page).read() if os.path.exists(page) else None
        if old != text:
            if check:
                print(f"{page} differs from the chapters' kernel.cu (run make tables)")
                status = 1
            else:
                with open(page, "w") as f:
                    f.write(text)
                print(f"updated {page}")
    for page in sorted(glob.glob("docs/diffs/*.md")):
        if os.path.basename(page) not in diffs:
            print(f"{page}: no such chapter pair any more")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
