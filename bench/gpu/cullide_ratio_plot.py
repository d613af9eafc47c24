#!/usr/bin/env python3
"""Issue 9's bar per process: a cullide row's median detect() time divided by peel's in the same
process, on pile/100 and deforming/100, for every process of one or more cullide-rows.sh runs,
with the 1.5 line (gnuplot, pngcairo).

    python3 bench/gpu/cullide_ratio_plot.py OUT.png TITLE ROW:RESULT_PREFIX [ROW:RESULT_PREFIX ...]

RESULT_PREFIX names a run's per-process files (RESULT_PREFIX-p<N>.json); ROW is the cullide row
plotted from that run (the same code may carry another name in another run).
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cullide_rows_summary import rows  # noqa: E402  (the rows of one process's JSON)


def medians(path):
    return {key: b["median_ms"] for key, b in rows(path).items()}


def main(out_png, title, specs):
    points = []  # (x, label, pile ratio, deforming ratio)
    for run, spec in enumerate(specs, 1):
        row, prefix = spec.split(":", 1)
        files = sorted(glob.glob(prefix + "-p*.json"), key=lambda f: int(re.search(r"-p(\d+)\.json$", f).group(1)))
        for f in files:
            m = medians(f)
            proc = re.search(r"-p(\d+)\.json$", f).group(1)
            ratio = {s: m[(s, row)] / m[(s, "peel")] for s in ("pile", "deforming")}
            label = f"run {run} p{proc}"
            points.append((len(points), label, ratio["pile"], ratio["deforming"]))
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "ratios")
        with open(data, "w") as fh:
            for x, label, pile, deforming in points:
                fh.write(f'{x} "{label}" {pile:.4f} {deforming:.4f}\n')
                print(f"{label}: pile {pile:.2f}x, deforming {deforming:.2f}x")
        for run, spec in enumerate(specs, 1):
            print(f"run {run}: {spec}")
        script = f"""
set terminal pngcairo size 900,420 font ",10" noenhanced
set output "{out_png}"
set title "{title}"
set ylabel "cullide / peel (median detect() ms, same process)"
set yrange [0:2]
set xtics rotate by -40
set key top left
set grid ytics
set rmargin 8
set bmargin 5
plot "{data}" using 1:3:xtic(2) with linespoints pt 7 title "pile/100", \\
     "{data}" using 1:4 with linespoints pt 5 title "deforming/100", \\
     1.5 with lines lw 2 dt 2 title "1.5 (issue 9)"
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
