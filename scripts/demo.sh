#!/usr/bin/env bash
# Quick start, command 1: install, build, and run the main demo headless (a pile of
# bunnies on the default GL, llvmpipe where there is no GPU). Extra arguments go to the demo
# (e.g. `--bodies 5 --steps 30`, what CI runs); its defaults are 30 bodies, 300 steps.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
./build/release/bin/isc info
./build/release/bin/isc demo bunny-pile --headless --out bunny-pile.png "$@"
echo "final frame: $(pwd)/bunny-pile.png"
