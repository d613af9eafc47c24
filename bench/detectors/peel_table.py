#!/usr/bin/env python3
"""Turns isc_bench_peel's JSON output into the tables and the plot of docs/detectors/peel.md.

Usage: bench/detectors/peel_table.py RESULTS.json [MORE.json ...] [--plot OUT.png] [--source NAME]

RESULTS.json: isc_bench_peel --benchmark_out=RESULTS.json --benchmark_out_format=json, best
with --benchmark_repetitions=5 (the medians are used; without repetitions the single runs);
several files (runs split by --benchmark_filter) are merged, a later file's row winning.
Prints Markdown: per scene the detect() time of cpu, peel (defaults) and peel at 128 px / 1
axis with peel's ratio to cpu and its stages, whether every call matched cpu, the
time-against-triangles table of the scaling series, and the tuning rows when present.
--plot writes a log-log plot (gnuplot, pngcairo or png terminal) of time against triangles for
the scaling series and the piles. --source names the results file in the tables' captions
(every figure in the docs names the committed file it comes from).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = {}
    for b in data.get("benchmarks", []):
        if b.get("error_occurred"):
            name = clean(b["name"])
            rows.setdefault(name, {})["error"] = b.get("error_message", "error")
            continue
        agg = b.get("aggregate_name")
        if agg not in (None, "median"):
            continue
        name = clean(b.get("run_name", b["name"]))
        row = rows.setdefault(name, {})
        if agg is None and "real_time" in row:
            continue  # repetitions without aggregates: keep the first
        row.update({k: v for k, v in b.items() if isinstance(v, (int, float))})
        row["real_time_ms"] = to_ms(b["real_time"], b.get("time_unit", "ms"))
    return data.get("context", {}), rows


def clean(name):
    name = re.sub(r"/min_time:[0-9.]+", "", name)
    name = re.sub(r"/manual_time", "", name)
    name = re.sub(r"_(median|mean|stddev|cv)$", "", name)
    return name


def to_ms(value, unit):
    return value * {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def fmt(x, digits=3):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits - 1}f}" if x >= 1 else f"{x:.{digits}f}"


def count(x):
    if x is None:
        return "—"
    x = float(x)
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}K"
    return f"{x:.0f}"


def scenes(rows, prefix):
    seen = []
    for name in rows:
        if not name.startswith(prefix):
            continue
        scene = name.rsplit("/", 1)[0]
        if scene not in seen:
            seen.append(scene)
    return seen


def get(rows, scene, detector, key="real_time_ms"):
    row = rows.get(f"{scene}/{detector}")
    return None if row is None else row.get(key)


def check(rows, scene, detector):
    row = rows.get(f"{scene}/{detector}")
    if row is None:
        return "—"
    if "error" in row:
        return "error: " + row["error"]
    missed, extra = row.get("missed_pairs", 0), row.get("extra_pairs", 0)
    if missed == 0 and extra == 0:
        return "same as cpu"
    truth = row.get("reference_pairs", row.get("triangle_pairs", 0) + missed - extra)
    return f"missed {missed:.0f}, extra {extra:.0f} of cpu's {truth:.0f}"


STAGES = ("gpu_world_ms", "gpu_cull_ms", "gpu_raster_ms", "gpu_rays_ms", "gpu_grid_ms", "gpu_filter_ms")


def second(rows):
    """The second peel row of the tables: peel_rays (collision rays on) where measured, else the
    older peel_128_1axis."""
    return "peel_rays" if any(n.endswith("/peel_rays") for n in rows) else "peel_128_1axis"


def main_table(rows, source):
    other = second(rows)
    label = "peel, rays on" if other == "peel_rays" else "peel 128²/1 axis"
    out = []
    out.append(f"detect() per call, ms (medians; `{source}`)\n")
    out.append(f"| scene | triangles | cpu | peel | peel ÷ cpu | {label} | ÷ cpu | peel: world / cull / raster / rays / "
               "grid / filter (GPU) | wait + read | CPU exact | cluster pairs / exact tests | peel's pairs against cpu |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for prefix in ("pile/", "scaling/", "deform/"):
        for scene in scenes(rows, prefix):
            cpu = get(rows, scene, "cpu")
            peel = get(rows, scene, "peel")
            old = get(rows, scene, other)
            stages = [get(rows, scene, "peel", k) for k in STAGES]
            out.append("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |".format(
                scene, count(get(rows, scene, "cpu", "triangles") or get(rows, scene, "peel", "triangles")),
                fmt(cpu), fmt(peel), fmt(peel / cpu) if peel and cpu else "—", fmt(old),
                fmt(old / cpu) if old and cpu else "—", " / ".join(fmt(s) for s in stages),
                fmt(get(rows, scene, "peel", "readback_ms")), fmt(get(rows, scene, "peel", "cpu_exact_ms")),
                count(get(rows, scene, "peel", "cluster_pairs")), count(get(rows, scene, "peel", "tri_tri_tests")),
                check(rows, scene, "peel") + (f"; {other}: " + check(rows, scene, other)
                                               if f"{scene}/{other}" in rows else "")))
    return "\n".join(out)


def scaling_table(rows, source):
    out = [f"\nTime against triangles: 16 bunnies subdivided 0..3 times (`{source}`)\n",
           f"| triangles | cpu ms | peel ms | {second(rows)} ms | peel ÷ cpu |", "|---|---|---|---|---|"]
    for scene in scenes(rows, "scaling/"):
        cpu, peel, old = get(rows, scene, "cpu"), get(rows, scene, "peel"), get(rows, scene, second(rows))
        out.append(f"| {count(get(rows, scene, 'cpu', 'triangles'))} | {fmt(cpu)} | {fmt(peel)} | {fmt(old)} | "
                   f"{fmt(peel / cpu) if peel and cpu else '—'} |")
    return "\n".join(out)


def tune_table(rows, source):
    tune = scenes(rows, "tune/")
    if not tune:
        return ""
    out = [f"\nTuning rows (`{source}`): peel at explicit settings, ms per call\n",
           "| scene | row | ms | world / cull / raster / rays / grid / filter (GPU) | pixels | kept | records | exact tests | "
           "against cpu |", "|---|---|---|---|---|---|---|---|---|"]
    for scene in tune:
        for name, row in rows.items():
            if not name.startswith(scene + "/"):
                continue
            detector = name.rsplit("/", 1)[1]
            stages = [row.get(k) for k in STAGES]
            out.append(f"| {scene[5:]} | {detector} | {fmt(row.get('real_time_ms'))} | "
                       f"{' / '.join(fmt(s) for s in stages)} | {count(row.get('pixels_sampled'))} | "
                       f"{count(row.get('triangles_kept'))} | {count(row.get('records'))} | "
                       f"{count(row.get('tri_tri_tests'))} | {check(rows, scene, detector)} |")
    return "\n".join(out)


def plot(rows, path):
    gnuplot = shutil.which("gnuplot")
    if gnuplot is None:
        print("peel_table: gnuplot not found (scripts/setup.sh installs gnuplot-nox); no plot", file=sys.stderr)
        return
    series = {"cpu": [], "peel": [], second(rows): []}
    for prefix in ("scaling/", "pile/"):
        for scene in scenes(rows, prefix):
            for det in series:
                t, n = get(rows, scene, det), get(rows, scene, det, "triangles")
                if t and n:
                    series[det].append((n, t, prefix[:-1]))
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for det, points in series.items():
            for kind in ("scaling", "pile"):
                f = os.path.join(tmp, f"{det}_{kind}.dat")
                with open(f, "w") as out:
                    for n, t, k in sorted(points):
                        if k == kind:
                            out.write(f"{n} {t}\n")
                files[(det, kind)] = f
        term = "pngcairo size 900,560" if "pngcairo" in subprocess.run(
            [gnuplot, "-e", "set terminal"], capture_output=True, text=True).stderr else "png size 900,560"
        lines = [f"set terminal {term}", f"set output '{path}'", "set logscale xy", "set grid",
                 "set xlabel 'triangles in the scene'", "set ylabel 'ms per detect() call'",
                 "set key left top", "set title 'peel and cpu: one detect() call (medians)'",
                 "set key noenhanced"]
        styles = {"cpu": "lc rgb '#444444'", "peel": "lc rgb '#1f77b4'", "peel_128_1axis": "lc rgb '#ff7f0e'",
                  "peel_rays": "lc rgb '#ff7f0e'"}
        plots = []
        for det in series:
            if os.path.getsize(files[(det, "scaling")]) > 0:
                plots.append(f"'{files[(det, 'scaling')]}' with linespoints pt 7 {styles[det]} title '{det}, 16 "
                             f"bunnies subdivided'")
            if os.path.getsize(files[(det, "pile")]) > 0:
                plots.append(f"'{files[(det, 'pile')]}' with points pt 5 ps 1.5 {styles[det]} title '{det}, piles'")
        if not plots:
            print("peel_table: no scaling or pile rows to plot", file=sys.stderr)
            return
        lines.append("plot " + ", ".join(plots))
        script = os.path.join(tmp, "plot.gp")
        with open(script, "w") as f:
            f.write("\n".join(lines) + "\n")
        subprocess.run([gnuplot, script], check=True)
    print(f"\n![time against triangles]({os.path.basename(path)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("results", nargs="+")
    ap.add_argument("--plot", help="write the time-against-triangles plot here (PNG)")
    ap.add_argument("--source", help="results file named in the captions (default: the argument)")
    args = ap.parse_args()
    context, rows = {}, {}
    for path in args.results:
        c, r = load(path)
        context = context or c
        rows.update(r)
    source = args.source or ", ".join(args.results)
    renderer = context.get("gl_renderer", "?")
    print(f"GL: {renderer}; host: {context.get('num_cpus', '?')} CPUs, {context.get('date', '?')}\n")
    print(main_table(rows, source))
    print(scaling_table(rows, source))
    t = tune_table(rows, source)
    if t:
        print(t)
    if args.plot:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
