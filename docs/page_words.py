#!/usr/bin/env python3
"""Words of prose on a page: what a student reads, leaving out fenced and
indented code, table rows, HTML comments (the figure markers) and tags.
Every whitespace-separated token of what is left counts, punctuation alone
("-", "=") included, as a reader's or an editor's word count has it.

    python3 docs/page_words.py 07_tma_multicast/README.md ...   one count per page
    python3 docs/page_words.py --check                          every chapter page and
                                                                docs/instructor.md against LIMIT
"""
import glob
import os
import re
import sys

LIMIT = 5000  # words of prose a page may have (../shared/design.md: a lesson a student reads in one sitting)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def prose_words(text):
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    words, fenced = 0, False
    for line in text.split("\n"):
        if re.match(r"\s*(```|~~~)", line):
            fenced = not fenced
            continue
        if fenced or line.startswith("    ") or line.startswith("\t") or line.lstrip().startswith("|"):
            continue
        line = re.sub(r"<[^>]+>", " ", line)
        words += len(line.split())  # every token a reader counts: "-", "=" and "(x)" alike
    return words


def pages():
    return sorted(glob.glob(os.path.join(ROOT, "[0-9][0-9]_*", "README.md"))) + [os.path.join(ROOT, "docs", "instructor.md")]


def main(argv):
    if argv[1:] == ["--check"]:
        over = []
        for p in pages():
            if not os.path.exists(p):
                continue
            n = prose_words(open(p).read())
            print(f"{n:6d}  {os.path.relpath(p, ROOT)}")
            if n > LIMIT:
                over.append(os.path.relpath(p, ROOT))
        if over:
            print(f"over {LIMIT} words of prose: {' '.join(over)} (move deep dives to the chapter's NOTES.md)", file=sys.stderr)
            return 1
        return 0
    for p in argv[1:]:
        print(f"{prose_words(open(p).read()):6d}  {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
