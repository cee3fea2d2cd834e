"""A chapter's test settings (tests/chapters/<chapter>.sh) read from Python.

The settings are bash arrays and strings, sourced by the GPU scripts
(bench.sh, profile.sh, trace.sh) through tests/lib.sh's settings(); this
module asks bash for them once per chapter, so both read the same file.
"""

import functools
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

ARRAYS = ("PTX_MUST PTX_MUST_NOT PTX_MUST_TC PTX_MUST_STEP SHAPE_ARGS SANITIZE_ARGS GPU_CASES QUICK_CASES GPU_EXIT_CASES SANITIZE_CASES "
          "BENCH_VARIANTS AB_VARIANTS BENCH_ARGS BENCH_DEMO_ARGS SANITIZE_VARIANTS PROFILE_VARIANTS TRACE_ARGS TRACE_MORE_ARGS "
          "TRACE_TEST_ARGS TRACE_MUST CHECK_PTX CHECK_GPU CHECK_FILES CHECK_BUILDS KNOBS_TEST KNOBS_TEST_ARGS "
          "KNOB_FORMS KNOB_FIXED").split()
STRINGS = ("PIPELINE_API QUICK_SANITIZER BENCH_KERNEL BENCH_ALSO_8192 PROFILE_KERNELS PROFILE_SKIP SASS_KERNELS "
           "GEMM CHECK_ONLY").split()


@functools.lru_cache(maxsize=None)
def load(ch, root=ROOT):
    """{name: list or str} for one chapter ("02_double_buffer")."""
    script = (f'. "{root}/tests/lib.sh"; settings "$1" || exit 1; '
              'for v in ' + " ".join(ARRAYS) + '; do eval "printf \'%s\\0\' \\"\\${$v[@]}\\""; printf \'\\1\\0\'; done; '
              'for v in ' + " ".join(STRINGS) + '; do eval "printf \'%s\\0\' \\"\\$$v\\""; done')
    out = subprocess.run(["bash", "-c", script, "settings", ch], cwd=root, env=dict(os.environ, ROOT=root),
                         stdout=subprocess.PIPE, check=True).stdout.decode()
    words = out.split("\0")
    s, i = {}, 0
    for name in ARRAYS:
        vals = []
        while words[i] != "\1":
            vals.append(words[i])
            i += 1
        i += 1
        s[name] = [v for v in vals if v != ""] if vals != [""] else []
    for name in STRINGS:
        s[name] = words[i]
        i += 1
    return s


def chapters(root=ROOT):
    """Every chapter folder, in order."""
    return sorted(d for d in os.listdir(root) if len(d) > 3 and d[:2].isdigit() and d[2] == "_"
                  and os.path.isfile(os.path.join(root, d, "Makefile")))


def chapter_of(n, root=ROOT):
    """'03' -> '03_warp_specialized', or None."""
    return next((c for c in chapters(root) if c.startswith(f"{n}_")), None)
