#!/usr/bin/env bash
# GPU round for the slices detector (issue 12; papers/004, Dinerstein & Egbert). Run on the lent
# NVIDIA machine from the repository root, after `bench/gpu/pack.sh build/release` here (it
# packs bin/isc and bench/*/isc_bench_slices into .devrun/) and the GL debs unpacked there:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gpu/slices.sh
# Writes under $OUT (6 files, about 1-2 minutes on an H100):
#   gpu.txt         the card and driver
#   info.txt        `isc info` (slices' line says whether glLogicOp or the shader-OR path runs here)
#   pile.json/.txt  isc_bench_slices: the 100-bunny pile, one detect() call per iteration, every
#                   candidate pair of the pile in one call; cpu, peel (128 px, 1 axis) and five
#                   slices rows on the same poses, medians of 3 repetitions, pairs against cpu's
#   accuracy.txt    isc accuracy --detector slices on the GPU: defaults, the conservative offset
#                   with the exact check (recall and precision 1), and two cells of Table 1 in
#                   the paper's set-up (32 px / 16 slices; 256 px, refined twice, 32 slices last)
# Small local check (llvmpipe): SLICES_PILE=8 SLICES_POSES=20 SLICES_REPS=1 OUT=/tmp/o bench/gpu/slices.sh
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
nvidia=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nvidia ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nvidia
out=${OUT:-/tmp/out}; bin=$PWD/.devrun/bin; mkdir -p "$out"
pile=${SLICES_PILE:-100}; poses=${SLICES_POSES:-1000}; reps=${SLICES_REPS:-3}
(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi") | tee "$out/gpu.txt"
"$bin/isc" info > "$out/info.txt" 2>&1
grep -E "renderer|^  slices" -A13 "$out/info.txt" | grep -E "renderer|slices|here:"
echo "=== pile/$pile"
ISC_BENCH_SLICES_SIZES=$pile timeout 150 "$bin/isc_bench_slices" --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/pile.json" --benchmark_out_format=json \
  > "$out/pile.txt" 2>&1
echo "rc=$?"; grep -A12 "isc_bench_slices summary" "$out/pile.txt"
echo "=== accuracy ($poses poses)"
acc() { timeout 60 "$bin/isc" accuracy --detector slices --poses "$poses" --quiet "$@" 2>&1 | tail -2; }
{
  acc --mesh bunny bunny
  acc --mesh bunny knot
  acc --mesh bunny bunny --set offset=1
  acc --mesh bunny knot --set offset=1
  acc --mesh bunny bunny --set fill=false --set exact=false --set resolution=32
  acc --mesh bunny bunny --set fill=false --set exact=false --set resolution=256 --set refine=2 --set lastSlices=32
} | tee "$out/accuracy.txt" | grep "^accuracy"
