#!/usr/bin/env python3
"""The per-step trace of isc_bench_broadphase's whole-step replay rows or pile rows (ISC_BENCH_BROADPHASE_TRACE=1:
lines "trace <row>/<bodies> run <r> step <s> step_ms ... prune_ms ..."), per file and size: each row's
first step, the ratio of the rows' step sums after step 0 (per step the median over the runs, then
summed), the mean step in five windows, and the broadphase row's slowest steps with their late pairs
(bench/gpu/broadphase-12.sh part `trace`; docs/detectors/cullide.md, "The lead's round of 2026-11-29,
twelfth session"). Usage: trace_summary.py FILE..."""
import collections
import re
import statistics
import sys

LINE = re.compile(r"trace (\S+)/(\d+) run (\d+) step (\d+) step_ms ([\d.]+) collision_ms ([\d.]+) detect_ms ([\d.]+) "
                  r"passed (\d+) added_late (\d+) dropped_late (\d+) prune_ms ([\d.]+)")

for path in sys.argv[1:]:
    # size -> row -> step -> [(step_ms, detect_ms, passed, added_late, prune_ms) per run]
    data = collections.defaultdict(lambda: collections.defaultdict(lambda: collections.defaultdict(list)))
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if m:
            g = m.groups()
            data[int(g[1])][g[0]][int(g[3])].append((float(g[4]), float(g[6]), int(g[7]), int(g[8]), float(g[10])))
    print(f"## {path.rsplit('/', 1)[-1]}")
    for size in sorted(data):
        rows = data[size]
        if "dbvt" not in rows or len(rows) < 2:
            continue
        other = next(r for r in rows if r != "dbvt")
        steps = sorted(rows["dbvt"])
        med = {r: {s: statistics.median(x[0] for x in rows[r][s]) for s in steps if s in rows[r]} for r in ("dbvt", other)}
        n = len(steps)
        print(f"  {size} bodies, {n} steps, {len(rows['dbvt'][0])} runs: first step dbvt {med['dbvt'][0]:.1f} ms, "
              f"{other} {med[other][0]:.1f} ms")
        after = [sum(med[r][s] for s in steps[1:]) for r in ("dbvt", other)]
        print(f"    after step 0, {other} / dbvt: {after[1] / after[0]:.3f} ({after[1]:.1f} / {after[0]:.1f} ms)")
        for a, b in ((0, 1), (1, 10), (10, n // 3), (n // 3, 2 * n // 3), (2 * n // 3, n)):
            if b <= a:
                continue
            w = [sum(med[r][s] for s in steps[a:b]) / (b - a) for r in ("dbvt", other)]
            print(f"    steps {a}-{b - 1}: dbvt {w[0]:.2f}, {other} {w[1]:.2f} ms a step ({w[1] / w[0]:.3f})")
        worst = sorted(steps[1:], key=lambda s: -med[other][s])[:5]
        for s in sorted(worst):
            x = rows[other][s][0]
            print(f"    slow step {s}: {other} {med[other][s]:.1f} ms (detect {x[1]:.1f}, pass {x[4]:.1f}, "
                  f"{x[2]} pairs, {x[3]} added late), dbvt {med['dbvt'][s]:.1f} ms")
