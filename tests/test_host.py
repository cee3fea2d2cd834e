"""The host tier: what needs no GPU. Every chapter builds with warnings as
errors and its PTX has its technique; its harness refuses bad input; the
knobs, the shared-memory needs, the pages, tables and figures are right."""

import functools
import glob
import os
import re
import shutil

import pytest

from conftest import CHAPTERS, HANDOUT, TREE, WORK, built, chapter_settings, jobs, per_chapter, sh

pytestmark = pytest.mark.host
ch_param = pytest.mark.parametrize("ch", per_chapter())


@functools.lru_cache(maxsize=None)
def knobs(ch):
    return sh(["make", "-s", "--no-print-directory", "-C", ch, "print-KNOBS"])[1].split()


@functools.lru_cache(maxsize=None)
def make_print(ch, var, *args):
    return sh(["make", "-s", "--no-print-directory", "-C", ch, f"print-{var}", *args])[1].strip()


# ----------------------------------------------------------------- builds

def test_unit_tests(say):
    """common/'s unit tests, built with warnings as errors, each one run."""
    cuda = os.environ["CUDA_HOME"]
    os.makedirs(os.path.join(TREE, "tests", "build"), exist_ok=True)
    rc, out = sh(["cc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-O1", "-isystem",
                  f"{cuda}/include", "tests/unit/test_common.c", "common/options.c", "common/stats.c",
                  "common/matrix.c", "common/verify.c", "common/report.c", "common/watchdog.c", "-lm", "-o",
                  "tests/build/test_common"])
    say(out)
    assert rc == 0, out
    names = sh(["tests/build/test_common", "--list"])[1].split()
    failed = []
    for n in names:
        rc, out = sh(["tests/build/test_common", n], timeout=120)
        say(f"{n}: exit {rc}\n{out}")
        if rc != 0:
            failed.append(n)
    assert names and not failed, f"unit tests failed: {failed}"


def test_carried_boxes(say):
    """tma_store_tc's carried boxes (07_tma_multicast/carry.cuh): every box
    stored exactly once, at every K-step count, box count and stride the
    kernel can be built with, and a catch-up one box off is caught
    (tests/unit/carry_test.c)."""
    os.makedirs(os.path.join(TREE, "tests", "build"), exist_ok=True)
    rc, out = sh(["cc", "-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I.", "tests/unit/carry_test.c",
                  "-o", "tests/build/carry_test"])
    say(out)
    assert rc == 0, out
    rc, out = sh(["tests/build/carry_test"])
    say(out)
    assert rc == 0 and re.search(r"^[1-9][0-9]* cases, 0 wrong; a catch-up one box off caught in [1-9]", out), out


def test_headers_stand_alone(say):
    """Every header of the chapters and common/ compiles when it is the
    first thing a file includes (with the defines the build gives its
    chapter): as C where a .c file includes it, else as CUDA. A header
    includes what it uses, so no reader needs to know an order. CUDA is
    compiled to PTX only: the device pass parses every function, host ones
    too, but not host code hidden from it by #ifndef __CUDA_ARCH__, which
    no header may have."""
    from concurrent.futures import ThreadPoolExecutor
    dirs = ["common"] + CHAPTERS
    files = [os.path.relpath(os.path.join(d, f), TREE) for top in dirs
             for d, _, fs in os.walk(os.path.join(TREE, top)) if "build" not in os.path.relpath(d, TREE).split("/")
             for f in fs]
    heads = sorted(f for f in files if f.endswith((".h", ".cuh")))
    c_text = "".join(open(os.path.join(TREE, f), errors="replace").read() for f in files if f.endswith(".c"))
    cuda = os.environ["CUDA_HOME"]
    out_dir = os.path.join(WORK, "headers")
    os.makedirs(out_dir, exist_ok=True)

    chapter_defs = {d: sh(["make", "-s", "--no-print-directory", "-C", d if d != "common" else "01_naive",
                           "print-KNOB_DEFS", "print-TC_DEFS"])[1].split() for d in dirs}

    def one(h):
        defs = chapter_defs[h.split("/")[0]]
        as_c = h.endswith(".h") and re.search(rf'#include "([^"]*/)?{re.escape(os.path.basename(h))}"', c_text)
        src = os.path.join(out_dir, re.sub(r"\W", "_", h) + (".c" if as_c else ".cu"))
        with open(src, "w") as f:
            f.write(f'#include "{os.path.join(TREE, h)}"\n')
        cmd = (["cc", "-std=c11", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-isystem", f"{cuda}/include"] if as_c
               else [os.environ["TUTORIAL_NVCC_REAL"], "-ptx", "-x", "cu", "-std=c++17", "-gencode",
                     "arch=compute_90a,code=compute_90a", "-o", "/dev/null"]) + defs + [src]
        rc, out = sh(cmd)
        return h, "C" if as_c else "CUDA", rc, out

    with ThreadPoolExecutor(max_workers=max(2, jobs())) as pool:
        results = list(pool.map(one, heads))
    bad = [f"{h}: host code under #ifndef __CUDA_ARCH__, which a PTX-only compile does not read" for h in heads
           if re.search(r"^\s*#\s*if(ndef\s+|\s+!\s*defined\s*\(?\s*)__CUDA_ARCH__\b",
                        open(os.path.join(TREE, h)).read(), re.M)]
    for h, lang, rc, out in results:
        say(f"{'ok  ' if rc == 0 else 'FAIL'} {h} ({lang})")
        if rc != 0:
            bad.append(f"{h}: {out[-400:]}")
    assert len(heads) > 40 and not bad, bad


# ------------------------------------------------------------------- PTX

@ch_param
def test_ptx_has_the_technique(ch, say):
    if HANDOUT:
        pytest.skip("a handout: the technique is the student's to write (make check-NN)")
    built(ch)
    s = chapter_settings(ch)
    assert s["PTX_MUST"], f"tests/chapters/{ch}.sh sets no PTX_MUST"
    ptx = open(os.path.join(TREE, ch, "build", "kernel.ptx")).read()
    bad = []
    for p in s["PTX_MUST"]:
        hit = re.search(p.replace("[[:space:]]", r"\s"), ptx) is not None
        say(("found     " if hit else "MISSING   ") + p)
        bad += [] if hit else [p]
    # no trace point in a default build (only TRACE=1 has them)
    for p in s["PTX_MUST_NOT"] + ["tutorial_trace_target"]:
        hit = re.search(p, ptx) is not None
        say(("UNWANTED  " if hit else "absent    ") + p)
        bad += [p] if hit else []
    tc = os.path.join(TREE, ch, "kernel_tc.cu")
    if os.path.exists(tc):
        assert s["PTX_MUST_TC"], f"tests/chapters/{ch}.sh sets no PTX_MUST_TC"
        ptx = open(os.path.join(TREE, ch, "build", "kernel_tc.ptx")).read()
        for p in s["PTX_MUST_TC"]:
            hit = re.search(p.replace("[[:space:]]", r"\s"), ptx) is not None
            say(("found     " if hit else "MISSING   ") + p + " (kernel_tc)")
            bad += [] if hit else [p]
    for rule in s["PTX_MUST_STEP"]:
        f, p = rule.split(":", 1)
        ptx = open(os.path.join(TREE, ch, "build", f + ".ptx")).read()
        hit = re.search(p.replace("[[:space:]]", r"\s"), ptx) is not None
        say(("found     " if hit else "MISSING   ") + p + f" ({f})")
        bad += [] if hit else [rule]
    assert not bad, f"PTX rules that fail: {bad}"


# ----------------------------------------------------------------- knobs

@ch_param
def test_knob_has_one_home(ch, say):
    """A knob's one home is its Makefile line `KNOB ?= default  # meaning`
    (the default a value or a make expression, derived from other knobs):
    no source defines it (but after an #undef), and no knobs string types
    its name and value (KNOB(NAME) records them)."""
    mk = open(os.path.join(TREE, ch, "Makefile")).read()
    srcs = [p for p in glob.glob(os.path.join(TREE, ch, "*.cu")) + glob.glob(os.path.join(TREE, ch, "*.cuh")) +
            glob.glob(os.path.join(TREE, ch, "*.h")) + glob.glob(os.path.join(TREE, ch, "demos", "*"))]
    bad = []
    for k in knobs(ch):
        n = len(re.findall(rf"^{k} +\?= *(\$\(.*\)|[^ #]+) *# *[^ ]", mk, re.M))
        say(f"{k}: {n} Makefile line(s) with a default and a meaning")
        if n != 1:
            bad.append(f"{k}: {n} Makefile lines")
        for p in srcs:
            prev = ""
            for line in open(p, errors="replace"):
                w = line.split()
                if len(w) >= 2 and w[0] == "#define" and w[1] == k and not (prev[:1] == ["#undef"] and prev[1:2] == [k]):
                    bad.append(f"{os.path.basename(p)} defines {k}")
                prev = w
            if re.search(rf'"[ ]?{k}=" *STR\({k}\)', open(p, errors="replace").read()):
                bad.append(f"{os.path.basename(p)} types {k} in a knobs string: KNOB({k})")
    assert not bad, bad


@ch_param
def test_make_help_lists_knobs(ch, say):
    rc, out = sh(["make", "--no-print-directory", "-C", ch, "help"])
    say(out)
    assert rc == 0
    missing = [k for k in knobs(ch) if not re.search(rf"^  {k}=[^ ]+ +[a-z0-9]", out, re.M)]
    assert not missing, f"knobs missing from make help: {missing}"


@ch_param
def test_below_min_cc_refused(ch, say):
    """Building for an ARCH below MIN_CC stops before compiling, naming the need."""
    m = make_print(ch, "MIN_CC")
    below = {"75": "sm_70", "80": "sm_75", "90": "sm_89"}[m]
    rc, out = sh(["make", "--no-print-directory", "-C", ch, f"ARCH={below}", "BUILD=build/refused",
                  "BIN=build/refused/run"])
    say(out)
    assert rc != 0 and f"chapter {ch[:2]} needs compute capability {m[:-1]}.{m[-1]} for" in out
    assert not os.path.exists(os.path.join(TREE, ch, "build", "refused", "run"))


# --------------------------------------------------------- the harness

@ch_param
def test_help_lists_options(ch, say):
    rc, out = sh([built(ch), "--help"])
    say(out)
    assert rc == 0 and "--reps" in out and "exit codes" in out and "from: " in out and "--check-dump" in out


@ch_param
def test_no_gpu_exit_3(ch, say):
    rc, out = sh([built(ch)], env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
    say(out)
    assert rc == 3 and "no NVIDIA GPU or driver found" in out and "nvidia-smi" in out


BAD_OPTIONS = [["--m", "-1"], ["--m", "0"], ["--k", "abc"], ["--n", "99999999999"], ["--reps"], ["--bogus"],
               ["--only", "nosuchkernel"], ["--dump", "d", "--check-dump", "d"]]


@pytest.mark.parametrize("ch,args", per_chapter([(c, a) for c in CHAPTERS for a in BAD_OPTIONS], ids=" ".join))
def test_bad_option_exit_2(ch, args, say):
    rc, out = sh([built(ch)] + args)
    say(out)
    assert rc == 2 and out.strip()


@ch_param
def test_trace_needs_a_trace_build(ch, say):
    """--trace in a build without trace points says how to get one, exit 2."""
    f = os.path.join(WORK, f"no-trace-{ch}.json")
    rc, out = sh([built(ch), "--trace", f])
    say(out)
    assert rc == 2 and "TRACE=1" in out and not os.path.exists(f)


def test_chapter_targets_point_run(say):
    """make chapter-NN builds (nothing left to do) and points ./run at it."""
    for ch in CHAPTERS:
        built(ch)
        rc, out = sh(["make", "--no-print-directory", f"chapter-{ch[:2]}", "WERROR=1"])  # the suite's build's flags
        say(out)
        assert rc == 0 and os.readlink(os.path.join(TREE, "run")) == f"{ch}/run", out
        assert "NVCC " not in out and "LINK " not in out, f"make chapter-{ch[:2]} rebuilt what the suite built:\n{out}"
        assert sh(["./run", "--help"])[0] == 0


def test_make_help_lists_chapters(say):
    rc, out = sh(["make", "--no-print-directory", "help"])
    say(out)
    assert rc == 0 and all(f"chapter-{ch[:2]}" in out for ch in CHAPTERS)


# ------------------------------------------------------- shared memory

# One ARCH per shared-memory class that the others add nothing to: sm_86
# and sm_89 have sm_120a's 99 KB and knobs (sm_120a also builds 06 and 07),
# sm_87 sm_80's 163 KB, sm_100a sm_90a's 227 KB without the tensor-core
# kernels. make test-gpu checks those four too (test_gpu.py).
SMEM_QUICK = ["sm_75", "sm_80", "sm_90a", "sm_120a"]


def smem_arches():
    return make_print("01_naive", "SMEM_ARCHES").split()


@pytest.mark.parametrize("arch", SMEM_QUICK)
def test_smem_fits(arch, say):
    check_smem(arch, say)


def check_smem(arch, say):
    """make smem for one ARCH: each kernel's dynamic shared memory fits what
    that ARCH lets a block have, but for the kernels its chapter declares
    too big there (TOO_BIG_<class>), which must really not fit."""
    assert arch in smem_arches(), f"{arch} is not in common/arch.mk's SMEM_ARCHES"
    cc = int(re.sub(r"\D", "", arch))
    limit = int(make_print("01_naive", "SMEM_PER_BLOCK", f"ARCH={arch}"))
    cls = make_print("01_naive", "SMEM_CLASS", f"ARCH={arch}")
    say(f"{arch}: at most {limit} B per block ({cls})")
    bad = []
    for ch in CHAPTERS:
        if cc < int(make_print(ch, "MIN_CC")):
            continue
        big = make_print(ch, f"TOO_BIG_{cls}").split()
        known = re.findall(r'\{"([a-z0-9_]*)", (?:\.launch_tc = )?launch_', open(os.path.join(TREE, ch, "main.c")).read())
        rc, out = sh(["make", "-s", "--no-print-directory", "-C", ch, f"ARCH={arch}", "smem"])
        if rc != 0:
            bad.append(f"{ch}: make smem failed: {out[-500:]}")
            continue
        for line in out.split("\n"):
            if not line.strip():
                continue
            name, b = line.split()
            b = int(b)
            if name not in known:
                bad.append(f"{ch} {name} {b}: NOT a kernel of {ch}/main.c")
            elif name in big:
                say(f"  {ch} {name} {b}: too big, declared" if b > limit else f"  {ch} {name} {b}: declared too big but FITS")
                if b <= limit:
                    bad.append(f"{ch} {name}: declared too big but fits")
            else:
                say(f"  {ch} {name} {b}: {'fits' if b <= limit else 'DOES NOT FIT'}")
                if b > limit:
                    bad.append(f"{ch} {name} {b} does not fit {limit}")
    assert not bad, bad


def test_smem_reported(say):
    """Every launcher that opts in to shared memory names its kernels for make smem."""
    bad = []
    for f in sorted(glob.glob(os.path.join(TREE, "[0-9][0-9]_*", "*.cu")) +
                    glob.glob(os.path.join(TREE, "[0-9][0-9]_*", "demos", "*.cu"))):
        s = open(f).read()
        if "smem_opt_in((" in s:
            ok = re.search(r"^SMEM_REPORT\(", s, re.M) is not None
            say(f"{os.path.relpath(f, TREE)}: {'reports' if ok else 'NO SMEM_REPORT line'}")
            bad += [] if ok else [f]
    assert not bad


# --------------------------------------------------------------- pages

def test_tables_match_results(say):
    rc, out = sh(["python3", "docs/gen_pages.py", "--check"])
    say(out)
    assert rc == 0, out[-3000:]


def test_gen_pages_figures(say):
    """docs/gen_pages.py fills each kind of figure and refuses bad markers."""
    rc, out = sh(["bash", "tests/unit/gen_pages_test.sh"])
    say(out)
    assert rc == 0, out[-3000:]


def test_figures_up_to_date(say):
    rc, out = sh(["bash", "docs/figures.sh", "--check"])
    say(out)
    assert rc == 0, out[-3000:]


def test_pages_in_one_sitting(say):
    """Every chapter page and the instructor's page hold at most
    docs/page_words.py's LIMIT words of prose (code, tables and markers left
    out): the deep dives live on the chapter's NOTES.md. The count itself is
    checked on a page made to be over the limit, so the test can fail; a
    token of punctuation alone ("-", "=") counts, as a reader counts it."""
    rc, out = sh(["python3", "docs/page_words.py", "--check"])
    say(out)
    assert rc == 0, out
    big = os.path.join(WORK, "words-test.md")
    with open(big, "w") as f:
        f.write("```\ncode not counted\n```\n| a | table |\n<!-- a marker -->\n" + "word " * 4998 + "- = (1)\n")
    rc, out = sh(["python3", "docs/page_words.py", big])
    assert out.split()[0] == "5001", out


def md_pages():
    """The repository's Markdown pages: what a Git host shows, and Doxygen's site."""
    pats = ["README.md", "docs/*.md", "docs/diffs/*.md", "[0-9][0-9]_*/README.md", "[0-9][0-9]_*/NOTES.md"]
    return sorted(os.path.relpath(f, TREE) for p in pats for f in glob.glob(os.path.join(TREE, p)))


def shown_lines(text):
    """A Markdown page's lines as a Git host shows them as text: fenced code,
    inline code and HTML comments blanked (the line numbers stay)."""
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out, fenced = [], False
    for line in text.split("\n"):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else re.sub(r"`[^`]*`", "", line))
    return out


def test_no_attribute_text_on_pages(say):
    """No page shows Doxygen's "{#id}" as text: a Git host renders
    "# Title {#id}" literally. A page's or a section's id is an empty
    HTML anchor, <a id="id"></a>, which Doxygen and a Git host both honour
    (docs/gen_pages.py's anchor() for the diff pages)."""
    assert [l for l in shown_lines("# A page {#id}\n```\nx = ${#a[@]}\n```\n`{#b}` <!-- {#c} -->") if "{#" in l] == \
        ["# A page {#id}"]  # the check itself: code and comments aside, the title's id is found
    pages = md_pages()
    bad = [f"{p}:{i}: {l.strip()}" for p in pages
           for i, l in enumerate(shown_lines(open(os.path.join(TREE, p)).read()), 1) if "{#" in l]
    say(f"{len(pages)} pages checked")
    assert len(pages) > 20 and not bad, "\n".join(bad)


def git_host_id(heading):
    """The id a Git host (GitHub) gives a heading: its text lowercased,
    punctuation dropped but '-' and '_', each space a '-'."""
    t = re.sub(r"<[^>]+>", "", heading.replace("`", "")).strip().lower()
    return re.sub(r"[^\w\- ]", "", t).replace(" ", "-")


ANCHOR = re.compile(r'<a (?:id|name)="([^"]+)"></a>')


def test_section_links_land(say):
    """A link to a section of another page, [...](NOTES.md#id), lands on
    both hosts: the page has the anchor <a id="id"></a> on the line above
    the section's heading (Doxygen knows a heading by an explicit anchor
    only), and id is the id a Git host gives that heading. Every link of a
    chapter's README to its NOTES.md that names one of its sections
    ("[chapter 07's notes, "The TMA-store step"](NOTES.md)", or the name
    just after the link) carries the section's anchor. Anchors are unique
    over all pages: Doxygen's are one namespace, and a second use of one
    fails make docs."""
    assert git_host_id("Where persistence pays: the profile at K = 64") == "where-persistence-pays-the-profile-at-k--64"
    assert git_host_id("`persistent_tc`'s knobs") == "persistent_tcs-knobs"
    pages = md_pages()
    shown = {p: shown_lines(open(os.path.join(TREE, p)).read()) for p in pages}
    anchors, bad = {}, []
    for p in pages:
        for i, l in enumerate(shown[p]):
            for a in ANCHOR.findall(l):
                if a in anchors:
                    bad.append(f"{p}:{i + 1}: anchor '{a}' is also at {anchors[a][0]}:{anchors[a][1] + 1}")
                anchors.setdefault(a, (p, i))
    links = 0
    for p in pages:
        text = "\n".join(shown[p])
        for m in re.finditer(r"\]\(([^()\s]*?\.md)#([^()\s]+)\)", text):
            links += 1
            where = f"{p}:{text.count(chr(10), 0, m.start()) + 1}"
            target = os.path.normpath(os.path.join(os.path.dirname(p), m.group(1)))
            a = anchors.get(m.group(2))
            if not a or a[0] != target:
                bad.append(f"{where}: no anchor '{m.group(2)}' in {target}")
                continue
            nxt = shown[target][a[1] + 1] if a[1] + 1 < len(shown[target]) else ""
            h = re.match(r"^#+ (.*)$", nxt)
            if not h or git_host_id(h.group(1)) != m.group(2):
                bad.append(f"{where}: anchor '{m.group(2)}' is not above a heading whose Git-host id it is "
                           f"({target}:{a[1] + 2}: {nxt!r})")
        if re.match(r"^[0-9][0-9]_[^/]*/README\.md$", p) and os.path.join(os.path.dirname(p), "NOTES.md") in shown:
            heads = {h.group(1).strip() for l in shown[os.path.join(os.path.dirname(p), "NOTES.md")]
                     for h in [re.match(r"^#+ (.*)$", l)] if h}
            for m in re.finditer(r"\[([^\]]*)\]\(NOTES\.md\)(,?\s*\"[^\"]*\")?", text):
                named = set(re.findall(r'"([^"]*)"', re.sub(r"\s+", " ", m.group(1) + (m.group(2) or ""))))
                if named & heads:
                    bad.append(f"{p}:{text.count(chr(10), 0, m.start()) + 1}: a link to the notes' section "
                               f"{sorted(named & heads)} without its anchor (NOTES.md#id)")
    say(f"{links} links to sections, {len(anchors)} anchors")
    assert links > 0 and not bad, "\n".join(bad)


@pytest.mark.skipif(shutil.which("doxygen") is None, reason="doxygen is not installed; .ci/run installs it")
def test_docs_build(say):
    """The site builds without warnings, and a chapter's macros link to its
    own definitions (03's kernel uses PRODUCER_THREADS from 03's knobs.h)."""
    rc, out = sh(["make", "--no-print-directory", "docs"], timeout=900)
    say(out)
    assert rc == 0 and os.path.isfile(os.path.join(TREE, "docs", "html", "index.html")), out[-3000:]
    page = open(os.path.join(TREE, "docs", "html", "03__warp__specialized_2kernel_8cu_source.html")).read()
    assert re.search(r'href="03__warp__specialized_2knobs_8h\.html#[a-f0-9]*">PRODUCER_THREADS<', page)
    assert not re.search(r'href="0[46]__[^"]*">PRODUCER_THREADS<', page)


def test_stopping_the_suite_ends_its_tests(say):
    """A TERM to tests/run.sh (a user's kill, or make's, which passes it on)
    ends every test the suite started (tests/unit/stop_test.sh)."""
    rc, out = sh(["bash", "tests/unit/stop_test.sh"], timeout=300)
    say(out)
    assert rc == 0, out
