"""Exercise regions for the grader: the regions of a submission, read by
common/regions.awk (the markers' one owner, which also makes starters,
handouts and diffs), and spliced into the repository's own files
(make grade-NN), refusing any region whose text could act beyond its
markers. The markers:

    // ---- exercise 02.1: Title ----
    // hint: ...
    ...the student's code...
    // ---- end of exercise 02.1 ----

The rule a region's text must follow (docs/instructor.md, "Grading a
class", says it to the instructor): it is a self-contained piece of C++
that only uses names the file already declares. Refused are

- a preprocessor directive or operator (`#`, `%:`, `_Pragma`, `__pragma`):
  an `#include` would bring any file in, a `#define` would change the code
  after the region; but `#pragma unroll` (with a count or none) alone on its
  line, a hint for the next loop that the lessons' own regions use;
- brackets that close what the region did not open, or that it leaves open,
  and an unterminated comment or string literal: each would turn code
  outside the region into the region's own (closing the function and
  defining a new one, or commenting out the rest of a kernel);
- a backslash at the end of a line (it joins the next line), trigraphs,
  digraphs and raw string literals;
- the keywords that reach other code: `asm` (arbitrary PTX or host
  assembly, symbols included), `extern` (declarations of functions the file
  does not declare), `__attribute__`, `__declspec`, `goto`;
- control characters other than tab, and more than MAX_LINES lines or
  MAX_BYTES bytes.
"""

import os
import re
import subprocess

AWK = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "common",
                   "regions.awk")

MAX_LINES = 200
MAX_BYTES = 16384

REFUSED_WORDS = {
    "asm": "an asm statement",
    "__asm": "an asm statement",
    "__asm__": "an asm statement",
    "extern": "an extern declaration",
    "_Pragma": "a _Pragma operator",
    "__pragma": "a __pragma operator",
    "__attribute__": "an __attribute__",
    "__declspec": "a __declspec",
    "goto": "a goto",
    # a type defined at a region's end turns the lesson's next statement into
    # a declaration of that type (struct S {} __syncthreads();): no region needs one
    "struct": "a type definition",
    "class": "a type definition",
    "union": "a type definition",
    "enum": "a type definition",
    "typedef": "a type definition",
    "template": "a template",
}


class RegionError(Exception):
    """Markers that do not pair up (nested, unterminated, mismatched)."""


class Region:
    """One region: the exercise, its title, the lines between its markers,
    and whether they hold only the starter's (regions.awk's state)."""

    def __init__(self, ex, title, begin, end, lines, state, file_lines):
        self.ex = ex          # "02.1"
        self.title = title
        self.begin = begin    # index of the begin marker's line
        self.end = end        # index of the end marker's line
        self.lines = lines    # the lines strictly between the markers
        self._state = state
        self._file = file_lines

    def state(self):
        """'todo' when only hints, stubs and the TODO line are there, else 'written'."""
        return self._state


def lines_of(text):
    """A file's text as lines without their ends (CRLF read as LF)."""
    return text.replace("\r\n", "\n").split("\n")


def _awk(mode, lines, name):
    p = subprocess.run(["awk", "-v", f"mode={mode}", "-v", f"name={name}", "-f", AWK],
                       input="\n".join(lines).encode("utf-8", "surrogateescape") + b"\n",
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RegionError(p.stderr.decode("utf-8", "replace").strip() or f"{name}: regions.awk failed")
    return p.stdout.decode("utf-8", "surrogateescape")


def parse(lines, name="file"):
    """The regions of a file, in order. Raises RegionError on broken markers."""
    out = []
    for row in _awk("spans", lines, name).splitlines():
        b, e, ex, title, state = row.split("\t")
        b, e = int(b) - 1, int(e) - 1
        out.append(Region(ex, title, b, e, lines[b + 1:e], state, lines))
    return out


def starter_lines(region):
    """What `make exercise-NN` leaves in a region (regions.awk, mode=strip):
    its hints, a TODO line, and the stub lines as code."""
    stripped = _awk("strip", region._file, "file").split("\n")
    k = [r.begin for r in parse(region._file)].index(region.begin)
    r = parse(stripped)[k]
    return r.lines


# ------------------------------------------------------------ the lexical rule

_PUNCT_OPEN = {"(": ")", "[": "]", "{": "}"}
_PUNCT_CLOSE = {")", "]", "}"}
_DIGRAPHS = ("<%", "%>", "<:", ":>", "%:")
_TRIGRAPH = re.compile(r"\?\?[=/'()!<>-]")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_UNROLL = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+unroll([ \t]+[0-9]+)?[ \t]*(//.*)?$")
_PPNUM = re.compile(r"\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.]|'(?=[0-9A-Za-z]))*")


def refusal(lines):
    """Why a region's lines may not be spliced into a file, or None when they
    may. The reason names the line (counted from the region's first line)."""
    text = "\n".join(lines)
    if len(lines) > MAX_LINES:
        return f"the region has {len(lines)} lines; at most {MAX_LINES} are taken"
    if len(text.encode("utf-8", "surrogateescape")) > MAX_BYTES:
        return f"the region has more than {MAX_BYTES} bytes"
    for n, line in enumerate(lines, 1):
        bad = [c for c in line if (ord(c) < 32 and c != "\t") or ord(c) == 127]
        if bad:
            return f"line {n}: a control character ({ord(bad[0]):#04x})"
        if line.endswith("\\"):
            return f"line {n}: a backslash at the end of the line (it joins the next line)"
        if _TRIGRAPH.search(line):
            return f"line {n}: a trigraph ({_TRIGRAPH.search(line).group(0)})"
    stack = []  # (bracket, line)
    first = last = None  # the region's first and last token outside comments
    i, n = 0, 1
    while i < len(text):
        c = text[i]
        if not c.isspace() and not text.startswith(("//", "/*"), i):
            first = first or (_IDENT.match(text, i) or re.match(".", c)).group(0)
            last = c
        if c == "\n":
            n += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                return f"line {n}: a comment that the region does not close"
            n += text.count("\n", i, j)
            i = j + 2
        elif c in "\"'":
            last = "a literal"
            j = i + 1
            while j < len(text) and text[j] != c:
                if text[j] == "\n":
                    break
                j += 2 if text[j] == "\\" else 1
            if j >= len(text) or text[j] != c:
                return f"line {n}: a {'string' if c == chr(34) else 'character'} literal that the line does not close"
            i = j + 1
        elif not c.isascii():
            return f"line {n}: a character that is not ASCII ({c!r}) outside a comment or a literal"
        elif c.isdigit() or (c == "." and text[i + 1:i + 2].isdigit()):
            i = _PPNUM.match(text, i).end()
            last = text[i - 1]
        elif c.isalpha() or c == "_":
            w = _IDENT.match(text, i).group(0)
            last = w
            if text.startswith('"', i + len(w)) and w in ("R", "LR", "uR", "UR", "u8R"):
                return f"line {n}: a raw string literal"
            if w in REFUSED_WORDS:
                return f"line {n}: {REFUSED_WORDS[w]} ('{w}')"
            i += len(w)
        elif c == "#":
            line_start = text.rfind("\n", 0, i) + 1
            line_end = text.find("\n", i)
            line = text[line_start:len(text) if line_end < 0 else line_end]
            if not _UNROLL.match(line):
                return f"line {n}: a preprocessor directive or operator ('#')"
            i = len(text) if line_end < 0 else line_end
            last = "#pragma unroll"
        elif text.startswith("[[", i):
            return f"line {n}: an attribute ('[[')"
        elif text.startswith(_DIGRAPHS, i):
            d = text[i:i + 2]
            return f"line {n}: a {'preprocessor operator' if d == '%:' else 'digraph'} ('{d}')"
        elif c in _PUNCT_OPEN:
            stack.append((c, n))
            i += 1
        elif c in _PUNCT_CLOSE:
            if not stack or _PUNCT_OPEN[stack[-1][0]] != c:
                return f"line {n}: '{c}' closes a bracket the region did not open"
            stack.pop()
            i += 1
        elif c == "\\":
            return f"line {n}: a backslash outside a literal"
        else:
            i += 1
    if stack:
        return f"line {stack[-1][1]}: '{stack[-1][0]}' is not closed in the region"
    # a region is whole statements: one that starts with else, or ends where
    # a statement is still open (if (0), a label, an operator, a pragma),
    # takes in the lesson's line before or after it
    if first == "else":
        return "it starts with 'else', which takes in the lesson's statement before it"
    if last not in (None, ";", "}"):
        return f"its code ends with '{last}', not with ';' or '}}': it would take in the lesson's next line"
    return None


# -------------------------------------------------------------- the splice

def splice(lesson_lines, sub_lines, own, name="file"):
    """The lesson file with the submission's regions of the exercises in `own`
    (a set of ids) in place of its own. The lesson's markers, hints and every
    line outside the regions stay; other chapters' regions stay the lesson's.

    Returns (lines, notes): notes maps an exercise to the reason it gets no
    points from this file (a region missing, repeated, refused, or markers
    that do not parse); such an exercise's regions get the starter's text,
    so that the rest of the file still builds and the other exercises are
    graded. `sub_lines` None: the file is missing from the submission."""
    lesson = parse(lesson_lines, name)
    notes = {}
    subs = {}
    if sub_lines is None:
        for r in lesson:
            if r.ex in own:
                notes.setdefault(r.ex, f"{name} is missing from the submission")
    else:
        try:
            for r in parse(sub_lines, name):
                subs.setdefault(r.ex, []).append(r)
        except RegionError as err:
            for r in lesson:
                if r.ex in own:
                    notes.setdefault(r.ex, f"the exercise markers in {name} are broken: {err}")
            subs = {}
    want = {}
    for r in lesson:
        want.setdefault(r.ex, []).append(r)
    for ex, rs in want.items():
        if ex not in own or ex in notes:
            continue
        got = subs.get(ex, [])
        if len(got) != len(rs):
            notes[ex] = (f"{name} has {len(got)} region{'s' if len(got) != 1 else ''} of exercise {ex}, "
                         f"the lesson {len(rs)}: a region {'is missing' if len(got) < len(rs) else 'is repeated'}")
            continue
        for k, r in enumerate(got, 1):
            why = refusal(r.lines)
            if why:
                notes[ex] = f"{name}, exercise {ex}, region {k} of {len(got)}: refused: {why}"
                break
    out, at, seen = [], 0, {}
    for r in lesson:
        out.extend(lesson_lines[at:r.begin + 1])
        k = seen.get(r.ex, 0)
        seen[r.ex] = k + 1
        if r.ex not in own:
            out.extend(r.lines)
        elif r.ex in notes:
            out.extend(starter_lines(r))
        else:
            out.extend(subs[r.ex][k].lines)
        out.append(lesson_lines[r.end])
        at = r.end + 1
    out.extend(lesson_lines[at:])
    return out, notes
