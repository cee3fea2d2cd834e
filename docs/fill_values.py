#!/usr/bin/env python3
"""Fill the figures a page's prose quotes from the committed CSVs.

docs/gen_tables.sh pipes every page through this filter (make tables), and
`make tables --check` fails when a figure in the text no longer matches its
CSV. A figure is marked in the Markdown source with an HTML comment before
it and an end marker after it; both are invisible on the rendered page:

    took <!-- value: docs/results/h100.csv chapter=06_clusters_dsmem
    kernel=cluster_leader m=4096 show=ms_median fmt=.3f -->3.817<!-- end -->&nbsp;ms

(the comment may not span lines; it is wrapped here only to fit. A space
after the end marker is written as &nbsp;, since Doxygen drops whitespace
after a comment.)

Filters are COLUMN=VALUE pairs matched exactly against the CSV's header
columns, plus has=TEXT / lacks=TEXT on the knobs column (contains / does
not contain, several alternatives separated by '|', as the tables take
them). Values with spaces are quoted shell-style. The filters must select
exactly one row; anything else is an error that names the marker.

show=COLUMN prints that row's column; scale=X multiplies it and div=COLUMN
divides it by another column of the row (e.g. per-iteration times).
With vs=KERNEL a second row is taken with the same filters but that kernel
(and vs.COLUMN=VALUE overrides), from the same CSV or from vsfile=PATH (the
same kernel on another GPU, say), and show= compares the two on col=
(default ms_median, or value in the profiler CSVs):
    speedup  vs / this          ratio  this / vs
    less     (1 - this/vs)*100  more   (this/vs - 1)*100
fmt= is a Python format spec: default the CSV's text for a column, .2f for
speedup and ratio, .0f for less and more.

Every figure (a Markdown image alone on its line) must have a visible
caption, a blank line and then an <em>...</em> line, since Doxygen shows
the image's own text only as alt text.

Code is quoted the same way, so that a page shows it on a Git host as well
as in Doxygen (which would otherwise need \\snippet, shown there as text):

    <!-- listing: 02_double_buffer/kernel.cu kernel -->
    (a fenced code block, generated)
    <!-- end listing -->

takes the lines between the two `// [kernel]` lines of the file, leaving
out the marker lines of other listings inside; without a name, the whole
file, as plain text. (A plain comment: `//! [kernel]`, Doxygen's snippet
marker, would show up as "[kernel]" in the API pages.)

    python3 docs/fill_values.py PAGE   the page with its figures and listings filled, on stdout
"""
import csv
import os
import re
import shlex
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
        src = shlex.split(m.group("spec"))[0] if m.group("spec").strip() else ""
        if "-answers" in src and not os.path.exists(src) and os.path.exists("HANDOUT"):
            return m.group(0)
        try:
            return f"<!-- value: {m.group('spec')} -->{value(m.group('spec'))}<!-- end -->"
        except (MarkerError, ValueError) as e:
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


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    name = sys.argv[1]
    with open(name) as f:
        text = f.read()
    out, errors = fill(text, name)
    sys.stdout.write(out)
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
