#!/usr/bin/env python3
"""Summarize an interleaved A/B run (a results CSV with a `round` column,
each round one run of every build): per kernel and knobs, the median over
rounds of the per-round medians (ms_median), the fastest and slowest round
(ms_min, ms_max), TFLOP/s and % of cuBLAS from that median, in the results
format, so pages can quote it with value markers.

    python3 tests/ab_summary.py docs/results/h200-ab.csv > docs/results/h200-ab-summary.csv

(tests/ab.sh runs the rounds and calls this.)
"""
import csv
import statistics
import sys

rows = list(csv.DictReader(open(sys.argv[1])))
cols = [c for c in rows[0] if c != "round"]
groups = {}
for r in rows:
    groups.setdefault((r["chapter"], r["kernel"], r["knobs"]), []).append(r)
base = {k[:2]: statistics.median(float(r["ms_median"]) for r in g) for k, g in groups.items()}
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(cols + ["rounds"])
for (chapter, kernel, knobs), g in groups.items():
    ms = [float(r["ms_median"]) for r in g]
    med = statistics.median(ms)
    out = dict(g[0])
    m, n, k = (int(out[x]) for x in "mnk")
    yard = base.get((chapter, "cublas_bf16" if kernel.endswith("_tc") or kernel == "cublas_bf16" else "cublas"))
    out.update(ms_median=f"{med:.5f}", ms_min=f"{min(ms):.5f}", ms_max=f"{max(ms):.5f}",
               tflops=f"{2.0 * m * n * k / med / 1e9:.3f}", pct_cublas=f"{yard / med * 100:.2f}" if yard else "NA",
               verified="yes" if all(r["verified"] == "yes" for r in g) else "no")
    w.writerow([out[c] for c in cols] + [len(g)])
