#!/usr/bin/env bash
# Turns the committed results (bench/results/) into the plots in docs/plots/ (gnuplot,
# Debian gnuplot-nox; `bash scripts/setup.sh --extras` installs it). bench/plots.py says what
# it reads and how to add a plot. Usage: bash bench/plots.sh [results dir] [output dir]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v gnuplot >/dev/null 2>&1; then
  echo "plots: gnuplot is missing: apt-get install gnuplot-nox (or bash scripts/setup.sh --extras)" >&2
  exit 1
fi
results=${1:-bench/results}
out=${2:-docs/plots}
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT
python3 bench/plots.py "$results" "$out" "$data"
# peel's page (docs/detectors/peel.md): time against triangles from the newest NVIDIA run of
# bench/gpu/peel-gpu.sh (peel and cpu of one run only, not merged with older code's rows).
peel=$(ls "$results"/h100-*-peel-gpu.json 2>/dev/null | sort | tail -1 || true)
if [ -n "$peel" ]; then
  python3 bench/detectors/peel_table.py "$peel" --plot "$out/peel-h100-time-vs-triangles.png" --source "$peel" >/dev/null
  echo "plots: wrote $out/peel-h100-time-vs-triangles.png (from $peel)"
fi
