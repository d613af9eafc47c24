#!/usr/bin/env bash
# GPU round A of 2026-11-23 (run on the lent NVIDIA machine from the repository root, after
# `ISC_PACK_TESTS=1 bench/gpu/pack.sh` here and the GL debs unpacked there): the test
# executables on the NVIDIA driver, accuracy of the exact GPU detectors at their defaults, and
# the peel pile bench beside cpu. Output under $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
out=${OUT:-/tmp/out}; bin=$PWD/.devrun/bin; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$bin/isc" info > "$out/info.txt" 2>&1
# Tests: the tool tests run `isc` from the build tree and are left out.
for t in .devrun/tests/*; do
  case $t in *isc_test_tools) continue ;; esac
  echo "=== $t"; timeout 150 "$t" --gtest_brief=1 2>&1 | tail -40
done > "$out/tests.txt" 2>&1
grep -E "^===|FAILED|PASSED" "$out/tests.txt" | tail -60
for d in peel cullide; do
  timeout 120 "$bin/isc" accuracy --detector $d --poses 200 --quiet 2>&1 | tail -2
done | tee "$out/accuracy.txt"
timeout 240 "$bin/isc_bench_peel" --benchmark_filter='^pile/' --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/peel-piles.json" --benchmark_out_format=json \
  > "$out/peel-piles.txt" 2>&1
tail -30 "$out/peel-piles.txt"
