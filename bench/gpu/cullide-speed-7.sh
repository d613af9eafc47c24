#!/usr/bin/env bash
# Branch cullide-7's round (issue 9's detector-speed bar, the deforming pile): isc_bench_cullide
# on pile/100 and deforming/100 with cpu and peel in the same process, three processes in turn
# (each its own GL context: the verdict is not one sample), then accuracy and the cullide tests
# on the NVIDIA driver. Rows (ISC_BENCH_CULLIDE_VARIANTS):
#   cullide       the defaults (uploadFirst, poseWhileWaiting on)
#   cullide_base  uploadFirst=false,poseWhileWaiting=false: main's code path before this round
#   cullide_up    uploadFirst only
#   cullide_pw    poseWhileWaiting only
#   cullide_ax1   axes=1 (the levels along z only; process 1)
# Process 1 also runs the patterns that take the deforming pile apart (CullideBench.cpp:
# deforming_same, deforming_gap, pile_gap): fresh vertices, the GPU's idle gap, the layout.
# Pile rows back to back (min 0.5 s); deforming rows and the patterns 80 calls each.
# Usage on the GPU machine, from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN, this script beside them):
#   ISC_DEVRUN=$PWD/.devrun-cullide-7 bash .devrun-cullide-7/cullide-speed-7.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (8 bunnies, 8 calls, 20 poses, one process).
# Writes under $OUT: gpu.txt, cullide-p1.txt (.json), cullide-p2.txt, cullide-p3.txt,
# accuracy-tests.txt.
set -uo pipefail
dev=${ISC_DEVRUN:-$PWD/.devrun}
export LD_LIBRARY_PATH=$dev/lib ISC_BUNNY_OBJ=$dev/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-$nv}
out=${OUT:-/tmp/out}; bin=$dev/bin; mkdir -p "$out"
size=100; calls=80; poses=200; procs=3
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then size=8; calls=8; poses=20; procs=1; fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"; date -u; } \
  > "$out/gpu.txt"
cat "$out/gpu.txt"
variants="cullide_base:uploadFirst=false,poseWhileWaiting=false;cullide_up:poseWhileWaiting=false;cullide_pw:uploadFirst=false;cullide_ax1:axes=1"
for p in $(seq 1 $procs); do
  if [ "$p" = 1 ]; then rows="cullide|cullide_base|cullide_up|cullide_pw|cullide_ax1|cpu|peel"; patterns="deforming_same,deforming_gap,pile_gap"
  else rows="cullide|cullide_base|cullide_up|cullide_pw|cpu|peel"; patterns=""; fi
  echo "=== process $p"
  ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=$calls ISC_BENCH_CULLIDE_VARIANTS="$variants" \
  ISC_BENCH_CULLIDE_PATTERNS="$patterns" timeout 100 "$bin/isc_bench_cullide" \
    --benchmark_filter="^(pile|deforming|deforming_same|deforming_gap|pile_gap)/$size/($rows)/" \
    --benchmark_out="$out/cullide-p$p.json" --benchmark_out_format=json > "$out/cullide-p$p.txt" 2>&1
  echo "rc=$?"
  sed -n '/# isc_bench_cullide summary/,/# cullide per level/p' "$out/cullide-p$p.txt"
done
{
  echo "=== isc accuracy --detector cullide --poses $poses"
  timeout 40 "$bin/isc" accuracy --detector cullide --poses $poses --quiet 2>&1
  for set in "--set uploadFirst=false --set poseWhileWaiting=false" "--set axes=1"; do
    echo "=== isc accuracy --detector cullide --poses $poses $set"
    # shellcheck disable=SC2086
    timeout 40 "$bin/isc" accuracy --detector cullide --poses $poses $set --quiet 2>&1
  done
  for t in "$dev"/tests/isc_test_cullide* "$dev"/tests/isc_test_pile_cullide; do
    [ -x "$t" ] || continue
    echo "=== $t"
    timeout 60 "$t" --gtest_brief=1 2>&1
    echo "rc=$?"
  done
} > "$out/accuracy-tests.txt"
grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
