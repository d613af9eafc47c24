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
