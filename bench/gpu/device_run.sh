#!/usr/bin/env bash
# Runs on the NVIDIA machine (from the repository root, after the GL debs are unpacked):
# isc info, accuracy and the benchmarks; everything goes to $OUT.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib
export ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
bin=$PWD/.devrun/bin
out=${OUT:-/tmp/out}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
"$bin/isc" info 2>&1 | tee "$out/info.txt"
for step in "$@"; do
  echo "=== $step"
  eval "$step" 2>&1 | tee -a "$out/runs.txt"
done
