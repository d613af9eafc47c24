#!/usr/bin/env python3
"""The accuracy table of docs/detectors/peel.md: `isc accuracy --detector peel` on the accuracy
suite (bunny-bunny, torus-torus, box-bunny; sampled close poses, seed 1) for each setting row.

Usage: bench/detectors/peel_accuracy.py [--isc PATH] [--poses N] [--rows ROW;ROW...] [--out FILE]

A row is a space-separated list of peel settings (name=value, as `--set`); the empty row is the
defaults. Default rows: the defaults, 32/64/128 pixels at 3 axes, 128 pixels at 1 axis, the
pair tiles at 128 / 3 axes and the paper's depth peeling at 64 / 3 axes. Prints a Markdown
table (precision, object recall, triangle-pair recall, colliding poses, ms per pose) and, with
--out, writes it and every raw `accuracy:` line to FILE (for bench/results/). Exits 1 when a
row of the defaults has a recall or precision below 1 (the documented figure).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

MESHES = [("bunny-bunny", ["bunny"]), ("torus-torus", ["torus"]), ("box-bunny", ["box", "bunny"])]
DEFAULT_ROWS = ["", "resolution=32 axes=3", "resolution=64 axes=3", "resolution=128 axes=3",
                "resolution=128 axes=1", "sampling=pairs resolution=128 axes=3",
                "sampling=peeling resolution=64 axes=3"]


def find_isc():
    for p in (".devrun/bin/isc", "build/release/bin/isc", "build/ci/bin/isc"):
        if os.access(p, os.X_OK):
            return p
    return "isc"


def run(isc, meshes, row, poses):
    cmd = [isc, "accuracy", "--detector", "peel", "--poses", str(poses), "--seed", "1", "--quiet", "--mesh", *meshes]
    for s in row.split():
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    text = p.stdout + p.stderr
    if p.returncode != 0:
        raise SystemExit(f"peel_accuracy: {' '.join(map(shlex.quote, cmd))} failed:\n{text}")
    fields = {}
    for line in text.splitlines():
        for k, v in re.findall(r"(\w+)=([0-9.]+|n/a)", line):
            fields[k] = v
    return " ".join(map(shlex.quote, cmd)), fields, [l for l in text.splitlines() if "accuracy:" in l or "_ms_per_pose" in l]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--isc", default=find_isc())
    ap.add_argument("--poses", type=int, default=200)
    ap.add_argument("--rows", help="';'-separated rows of settings (default: see --help)")
    ap.add_argument("--out", help="also write the table and the raw lines here")
    args = ap.parse_args()
    rows = args.rows.split(";") if args.rows is not None else DEFAULT_ROWS
    table = ["| settings | pair | poses | colliding | object recall | triangle-pair recall | precision | ms per pose |",
             "|---|---|---|---|---|---|---|---|"]
    raw = []
    bad = False
    for row in rows:
        for label, meshes in MESHES:
            cmd, f, lines = run(args.isc, meshes, row, args.poses)
            raw.append("$ " + cmd)
            raw += lines
            line = (f"| {row or 'defaults'} | {label} | {f.get('poses', '?')} | {f.get('colliding', '?')} | "
                    f"{f.get('object_recall', '?')} | {f.get('tripair_recall', '?')} | "
                    f"{f.get('tripair_precision', '?')} | {f.get('detector_ms_per_pose', '?')} |")
            table.append(line)
            print(line if len(table) > 3 else "\n".join(table), flush=True)
            if not row and any(f.get(k) not in ("1.0000", "n/a") for k in
                               ("object_recall", "tripair_recall", "tripair_precision")):
                bad = True
    if args.out:
        with open(args.out, "w") as out:
            out.write("\n".join(table) + "\n\n" + "\n".join(raw) + "\n")
    if bad:
        print("peel_accuracy: the defaults fell below recall or precision 1", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
