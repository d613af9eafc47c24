#!/usr/bin/env bash
# Quick start, command 1: install, build, and run the main demo headless (a pile of
# bunnies on the default GL, llvmpipe where there is no GPU). Extra arguments go to the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
./build/release/isc info || true
./build/release/isc demo bunny-pile --headless --bodies 30 --steps 300 --out bunny-pile.png "$@"
echo "final frame: $(pwd)/bunny-pile.png"
