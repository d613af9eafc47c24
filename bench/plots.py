#!/usr/bin/env python3
"""Turns the committed benchmark results (bench/results/) into the plots in docs/plots/.

Run through bench/plots.sh (it checks for gnuplot). Each plot is one entry of PLOTS below: a
function that gathers its series from the results and returns the gnuplot commands; gnuplot
(pngcairo) draws it. Adding a plot is adding a function to the table; adding results is
committing files to bench/results/:

- Google Benchmark JSON of isc_bench_pile (--benchmark_format=json or --benchmark_out): the
  benchmarks BM_Pile<Detector>/<bodies> with the counters collision_ms and step_ms (optional
  counter `triangles`; without it, bodies x 3674, the npm bunny). Any new detector family
  (BM_PileSlices, ...) shows up by itself. The machine is the file name up to its date
  (h200-2026-11-21-pile.json: h200); per machine the newest file is used.
- Google Benchmark JSON of a detector bench (isc_bench_peel, ...): rows named
  <scene>/<size>/<detector>/... with a `triangles` counter; scenes with several sizes become
  lines of ms per detect() call against triangles.
- Text logs with `isc accuracy` lines that carry `meshes=` and `options=` (bench/accuracy_sweep.sh
  writes them): triangle-pair recall against settings.resolution, one series per detector,
  mesh pair, axes and machine.
"""
import glob
import json
import os
import re
import subprocess
import sys

BUNNY_TRIANGLES = 3674
DATE = re.compile(r"-(\d{4}-\d{2}-\d{2})-")


def machine_and_date(path):
    name = os.path.basename(path)
    m = DATE.search(name)
    if not m:
        return name.split("-")[0], ""
    return name[: m.start()], m.group(1)


def pile_runs(results):
    """{machine: (date, file, {detector: [(bodies, triangles, collision_ms, step_ms)]})}, newest per machine
    (by the JSON's context.date, else the file name's date)."""
    runs = {}
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            continue
        series = {}
        for b in data.get("benchmarks", []):
            m = re.match(r"BM_Pile([A-Za-z]+)/(\d+)", b.get("name", ""))
            if not m or m.group(1) == "Ratio" or b.get("run_type") == "aggregate" or "collision_ms" not in b:
                continue
            detector = m.group(1).lower()
            detector = {"gimpact": "bullet-gimpact"}.get(detector, detector)
            bodies = int(m.group(2))
            triangles = b.get("triangles", bodies * BUNNY_TRIANGLES)
            series.setdefault(detector, []).append((bodies, triangles, b["collision_ms"], b.get("step_ms", 0.0)))
        if not series:
            continue
        machine, date = machine_and_date(path)
        date = data.get("context", {}).get("date", date)  # the run's own time stamp, when there
        if machine not in runs or (date, path) >= runs[machine][:2]:
            runs[machine] = (date, path, {d: sorted(v) for d, v in series.items()})
    return runs


def call_runs(results):
    """Detector calls of isc_bench_<detector> JSON: rows named <scene>/<size>/<detector>/... with a
    `triangles` counter (isc_bench_peel's and isc_bench_cullide's pile and scaling rows; the
    median when a run reports aggregates). {(machine, scene): {detector: {triangles: ms per call}}}
    and the files used; per machine every file counts, a newer file's point replaces an older one's,
    and a newer file's series of several sizes replaces the older series whole."""
    files = []
    for path in sorted(glob.glob(os.path.join(results, "*.json"))):
        try:
            data = json.load(open(path))
        except (OSError, ValueError):
            continue
        machine, date = machine_and_date(path)
        files.append((data.get("context", {}).get("date", date), path, machine, data))
    out, sources, origin = {}, set(), {}
    for _, path, machine, data in sorted(files, key=lambda f: (f[0], f[1])):
        series = {}
        for b in data.get("benchmarks", []):
            name = b.get("name", "")
            if "triangles" not in b or name.startswith("BM_") or name.count("/") < 2:
                continue
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
                continue
            scene, _, detector = name.split("/")[:3]
            unit = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}.get(b.get("time_unit", "ns"), 1.0)
            series.setdefault((machine, scene, detector), {})[int(b["triangles"])] = b["real_time"] * unit
        for (machine, scene, detector), points in series.items():
            line = out.setdefault((machine, scene), {})
            # A series this file measured at several sizes replaces the older one whole (a
            # line is one run, not old and new code mixed); single points merge.
            key = (machine, scene, detector)
            if len(points) >= 2:
                line[detector], origin[key] = {}, set()
            line.setdefault(detector, {}).update(points)
            origin.setdefault(key, set()).add(os.path.basename(path))
    for (machine, scene, detector), paths in origin.items():
        if len(out[(machine, scene)][detector]) >= 2:
            sources |= paths
    return out, sources


def accuracy_runs(results):
    """[(machine, detector, meshes, options dict, tripair_recall, object_recall)] from accuracy lines with options=."""
    out = []
    for path in sorted(glob.glob(os.path.join(results, "*.txt"))):
        machine, _ = machine_and_date(path)
        for line in open(path, errors="replace"):
            if not line.startswith("accuracy: ") or " options=" not in line:
                continue
            fields = dict(kv.split("=", 1) for kv in line[len("accuracy: "):].split() if "=" in kv)
            options = {} if fields.get("options") == "defaults" else dict(
                kv.split("=", 1) for kv in fields.get("options", "").split(",") if "=" in kv)
            try:
                recall = float(fields["tripair_recall"])
                objects = float(fields["object_recall"])
            except (KeyError, ValueError):
                continue
            out.append((machine, fields.get("detector", "?"), fields.get("meshes", "?"), options, recall, objects))
    return out


def write(path, rows):
    with open(path, "w") as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")


COMMON = """set terminal pngcairo size 960,600 font ",11"
set grid lc rgb "#dddddd"
set key top left box opaque
set border lc rgb "#444444"
"""


def plot_time_vs_triangles(results, data):
    runs = pile_runs(results)
    if not runs:
        return None
    plots = []
    for machine, (_, path, series) in sorted(runs.items()):
        for detector, rows in sorted(series.items()):
            name = f"{data}/time-{machine}-{detector}.dat"
            write(name, [(t, c) for (_, t, c, _) in rows])
            plots.append(f"'{name}' using 1:2 with linespoints lw 2 pt 7 title '{detector} ({machine})' noenhanced")
    sources = ", ".join(os.path.basename(p) for (_, p, _) in runs.values())
    return COMMON + f"""set title "Bunny pile: narrow phase per step against triangles\\n{{/*0.8 {sources}}}"
set logscale xy
set xlabel "triangles in the pile (bodies x 3674)"
set ylabel "collision ms per step (mean over the steps)"
set format x "%.0s%c"
plot {", ".join(plots)}
"""


def plot_call_time(results, data):
    runs, sources = call_runs(results)
    # Scenes with several sizes make lines (a scene of one size is a point: left out).
    plots = []
    for (machine, scene), series in sorted(runs.items()):
        for detector, points in sorted(series.items()):
            if len(points) < 2:
                continue
            tag = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{machine}-{scene}-{detector}")
            name = f"{data}/call-{tag}.dat"
            write(name, sorted(points.items()))
            plots.append(f"'{name}' using 1:2 with linespoints lw 2 pt 7 title '{detector}, {scene} ({machine})' noenhanced")
    if not plots:
        return None
    return COMMON + f"""set title "One detect() call against triangles\\n{{/*0.7 {', '.join(sorted(sources))}}}"
set logscale xy
set xlabel "triangles in the scene"
set ylabel "ms per call (wall)"
set key bottom right
set format x "%.0s%c"
plot {", ".join(plots)}
"""


def plot_detectors(results, data):
    runs = pile_runs(results)
    if not runs:
        return None
    # The machine with the most detectors, newest first on ties.
    machine, (date, path, series) = max(runs.items(), key=lambda kv: (len(kv[1][2]), kv[1][0]))
    detectors = sorted(series)
    bodies = sorted({b for rows in series.values() for (b, _, _, _) in rows})
    table = [["bodies"] + detectors]
    for n in bodies:
        row = [f'"{n}"']
        for d in detectors:
            value = next((c for (b, _, c, _) in series[d] if b == n), None)
            row.append("NaN" if value is None else f"{value:.4g}")
        table.append(row)
    name = f"{data}/detectors-{machine}.dat"
    write(name, table)
    cols = ", ".join(f"'' using {i + 2}{':xtic(1)' if i == 0 else ''} title columnheader noenhanced" for i in range(len(detectors)))
    cols = cols.replace("''", f"'{name}'", 1)
    return COMMON + f"""set title "Bunny pile, detector against detector ({machine}, {os.path.basename(path)})"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [0.1:*]
set xlabel "bunnies"
set ylabel "collision ms per step (log)"
set key top left
plot {cols}
"""


def plot_accuracy(results, data):
    runs = [r for r in accuracy_runs(results) if "resolution" in r[3]]
    if not runs:
        return None
    series = {}
    for machine, detector, meshes, options, recall, _ in runs:
        axes = options.get("axes", "3")
        key = (detector, meshes, axes, machine)
        series.setdefault(key, []).append((int(options["resolution"]), recall))
    plots = []
    for (detector, meshes, axes, machine), rows in sorted(series.items()):
        tag = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{detector}-{meshes}-{axes}-{machine}")
        name = f"{data}/accuracy-{tag}.dat"
        write(name, sorted(rows))
        unit = "axis" if axes == "1" else "axes"
        plots.append(f"'{name}' using 1:2 with linespoints lw 2 pt 7 title '{detector} {meshes}, {axes} {unit} ({machine})' noenhanced")
    return COMMON + f"""set title "Triangle-pair recall against resolution (isc accuracy, 100 sampled close poses per point)"
set logscale x 2
set xlabel "resolution (pixels across the smaller object)"
set ylabel "triangle-pair recall (found / exact)"
set key bottom right
set yrange [*:1.0005]
plot {", ".join(plots)}
"""


PLOTS = [
    ("pile-time-vs-triangles.png", plot_time_vs_triangles),
    ("pile-detectors.png", plot_detectors),
    ("detect-call-vs-triangles.png", plot_call_time),
    ("accuracy-vs-resolution.png", plot_accuracy),
]


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else "bench/results"
    out = sys.argv[2] if len(sys.argv) > 2 else "docs/plots"
    data = sys.argv[3] if len(sys.argv) > 3 else os.path.join(out, ".data")
    os.makedirs(out, exist_ok=True)
    os.makedirs(data, exist_ok=True)
    made = 0
    for file, make in PLOTS:
        script = make(results, data)
        if script is None:
            print(f"plots: {file}: no results for it in {results} (skipped)")
            continue
        target = os.path.join(out, file)
        subprocess.run(["gnuplot"], input=f"set output '{target}'\n" + script, text=True, check=True)
        print(f"plots: wrote {target}")
        made += 1
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
