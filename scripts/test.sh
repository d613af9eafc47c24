#!/usr/bin/env bash
# Quick start, command 2: install, build (asserts on), and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh ci
ctest --preset ci
