#!/usr/bin/env python3
"""Table 1 of Dinerstein & Egbert (papers/004) with the `slices` detector.

Usage: bench/detectors/slices_table.py ISC_BINARY [--poses N] [--seed S] [--out RESULTS.txt]
                                         [--plot OUT.png] [--cache RUNS.jsonl] [--quick]

Runs `isc accuracy --detector slices` in the paper's set-up (surfaces only: fill=false; no offset;
no exact check: exact=false, so a pair is reported when the two objects share a voxel) over the
paper's resolutions (16..256 px) and rows (no refinement, refined once, twice, twice with 32
slices in the last rendering; 16 slices otherwise), for bunny vs bunny and bunny vs the torus
knot, on the same random close poses per mesh pair (`isc accuracy` pose sampler, --seed). The
error rate is (false positives + false negatives) / poses against the exact `cpu` reference,
printed beside the paper's figure. Then the first and third rows with fill=true (interiors
coded), and the conservative / exact settings (offset=1, exact=true) whose recall and precision
must be 1. --out writes the raw `accuracy:` lines and the tables; --plot a gnuplot PNG of error
against resolution per row; --cache keeps every finished run (one JSON line each) so that an
interrupted sweep resumes where it stopped. --quick: 40 poses, two resolutions (to test it).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAPER = {  # Table 1: percent of test cases with an error
    "none": [2.97, 1.55, 1.63, 1.72, 2.07],
    "refine1": [3.02, 0.86, 0.45, 0.33, 0.26],
    "refine2": [3.16, 0.85, 0.27, 0.16, 0.08],
    "refine2_last32": [3.35, 0.81, 0.26, 0.12, 0.07],
}
ROWS = [
    ("none", "No refining (1 rendering)", ["refine=0"]),
    ("refine1", "Refined once (2 renderings)", ["refine=1"]),
    ("refine2", "Refined twice (3 renderings)", ["refine=2"]),
    ("refine2_last32", "Refined twice, 32 slices last (4 in the paper)", ["refine=2", "lastSlices=32"]),
]
RESOLUTIONS = [16, 32, 64, 128, 256]
MESHES = [("bunny", "bunny"), ("bunny", "knot")]


CACHE = {"path": None, "runs": {}}


def run(isc, meshes, poses, seed, sets):
    key = json.dumps([meshes, poses, seed, sets])
    if key in CACHE["runs"]:
        return CACHE["runs"][key]
    r = run_uncached(isc, meshes, poses, seed, sets)
    CACHE["runs"][key] = r
    if CACHE["path"]:
        with open(CACHE["path"], "a") as f:
            f.write(json.dumps({"key": key, "result": r}) + "\n")
    return r


def run_uncached(isc, meshes, poses, seed, sets):
    cmd = [isc, "accuracy", "--detector", "slices", "--poses", str(poses), "--seed", str(seed), "--quiet",
           "--mesh", meshes[0], meshes[1]]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    line = [l for l in out.splitlines() if l.startswith("accuracy:")][-1]
    ms = re.search(r"detector_ms_per_pose=([0-9.]+)", out)
    fields = dict(kv.split("=", 1) for kv in line[len("accuracy: "):].split(" ") if "=" in kv)
    n = int(fields["poses"])
    fn, fp = int(fields["false_negatives"]), int(fields["false_positives"])
    return {"line": line, "poses": n, "colliding": int(fields["colliding"]), "fn": fn, "fp": fp,
            "error": 100.0 * (fn + fp) / n, "recall": fields["object_recall"],
            "precision": fields["object_precision"], "tripair_recall": fields["tripair_recall"],
            "ms": float(ms.group(1)) if ms else 0.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("isc")
    ap.add_argument("--poses", type=int, default=1000, help="poses of the bunny vs bunny paper table")
    ap.add_argument("--poses-other", type=int, default=0,
                    help="poses of the other tables (bunny vs knot, fill=true, conservative); 0: --poses")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out")
    ap.add_argument("--plot")
    ap.add_argument("--cache")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    if a.cache:
        CACHE["path"] = a.cache
        if os.path.exists(a.cache):
            with open(a.cache) as f:
                for line in f:
                    if line.strip():
                        entry = json.loads(line)
                        CACHE["runs"][entry["key"]] = entry["result"]
    resolutions = RESOLUTIONS
    if a.quick:
        a.poses, a.poses_other, resolutions = 40, 40, [16, 32]
    if a.poses_other <= 0:
        a.poses_other = a.poses
    lines, text = [], []

    def say(s=""):
        print(s, flush=True)
        text.append(s)

    say(f"# slices Table 1 sweep: {a.poses} poses for bunny vs bunny (paper coding), {a.poses_other} for the other "
        f"tables (seed {a.seed}); error = (FP + FN) / poses, percent; llvmpipe unless the GL says otherwise")
    results = {}
    for fill in (False, True):
        for meshes in MESHES:
            if fill and meshes != MESHES[0]:
                continue  # fill=true: bunny vs bunny only
            poses = a.poses if (not fill and meshes == MESHES[0]) else a.poses_other
            say()
            say(f"## {meshes[0]} vs {meshes[1]}, fill={'true' if fill else 'false'}"
                + (" (the paper's surface coding)" if not fill else " (interiors coded too)")
                + f", 16 slices, offset 0, exact=false, {poses} poses")
            say()
            say("| rendering | " + " | ".join(f"{r}² ours (paper)" for r in resolutions) + " |")
            say("|---|" + "---|" * len(resolutions))
            for key, title, sets in ROWS:
                if fill and key not in ("none", "refine2"):
                    continue  # fill=true: two rows are enough to show what coding interiors changes
                cells = []
                for i, res in enumerate(resolutions):
                    r = run(a.isc, meshes, poses, a.seed,
                            ["fill=" + ("true" if fill else "false"), "exact=false", "slices=16",
                             f"resolution={res}"] + sets)
                    lines.append(r["line"] + f" detector_ms_per_pose={r['ms']:.3f}")
                    results[(fill, meshes, key, res)] = r
                    paper = PAPER[key][RESOLUTIONS.index(res)]
                    cells.append(f"{r['error']:.2f}% ({paper:.2f}%)")
                say(f"| {title} | " + " | ".join(cells) + " |")
            colliding = results[(fill, meshes, "none", resolutions[0])]["colliding"]
            say()
            say(f"Colliding poses (exact reference): {colliding} of {poses} "
                f"({100.0 * colliding / poses:.1f}%; the paper: about 20%).")
    say()
    say(f"## Conservative offset and exact check (16 slices, fill=true unless said, {a.poses_other} poses)")
    say()
    say("| meshes | settings | object recall | object precision | triangle-pair recall | FN | FP |")
    say("|---|---|---|---|---|---|---|")
    for meshes in MESHES:
        for sets in (["offset=1", "exact=false"], ["offset=1", "exact=true"], ["offset=-1", "exact=false"],
                     # the paper's recommended first pass: surfaces swollen by 1% of the model
                     ["fill=false", "offset=0.01", "offsetUnit=model", "exact=false"]):
            for res in [32]:
                r = run(a.isc, meshes, a.poses_other, a.seed, sets + [f"resolution={res}"])
                lines.append(r["line"] + f" detector_ms_per_pose={r['ms']:.3f}")
                say(f"| {meshes[0]} vs {meshes[1]} | {', '.join(sets)}, resolution={res} | {r['recall']} | "
                    f"{r['precision']} | {r['tripair_recall']} | {r['fn']} | {r['fp']} |")
    say()
    say("## Raw accuracy lines")
    say()
    for l in lines:
        say(l)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(text) + "\n")
    if a.plot and shutil.which("gnuplot"):
        with tempfile.TemporaryDirectory() as tmp:
            plots = []
            for meshes in MESHES:
                for key, title, _ in ROWS:
                    path = os.path.join(tmp, f"{meshes[0]}_{meshes[1]}_{key}.dat")
                    with open(path, "w") as f:
                        for res in resolutions:
                            f.write(f"{res} {results[(False, meshes, key, res)]['error']:.4f}\n")
                    plots.append(f"'{path}' using 1:2 with linespoints title '{meshes[0]} vs {meshes[1]}: {title}'")
            for key, title, _ in ROWS:
                path = os.path.join(tmp, f"paper_{key}.dat")
                with open(path, "w") as f:
                    for res, e in zip(RESOLUTIONS, PAPER[key]):
                        if res in resolutions:
                            f.write(f"{res} {e}\n")
                plots.append(f"'{path}' using 1:2 with linespoints dashtype 2 title 'paper: {title}'")
            script = f"""set terminal pngcairo size 1000,800 noenhanced
set output '{os.path.abspath(a.plot)}'
set logscale x 2
set xlabel 'resolution (pixels across the view)'
set ylabel 'error rate, % of poses (FP + FN)'
set title 'slices vs Dinerstein & Egbert Table 1 (16 slices, surfaces only, no offset; {a.poses} / {a.poses_other} poses, llvmpipe)'
set key below maxrows 6 font ',9'
set grid
plot {', '.join(plots)}
"""
            subprocess.run(["gnuplot"], input=script, text=True, check=True)


if __name__ == "__main__":
    sys.exit(main())
