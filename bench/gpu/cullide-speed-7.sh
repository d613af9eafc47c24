#!/usr/bin/env bash
# Branch cullide-7's round (issue 9's detector-speed bar, the deforming pile): isc_bench_cullide
# on pile/100 and deforming/100 with cpu and peel in the same process, three processes in turn
# (each its own GL context: the verdict is not one sample), then accuracy and the cullide tests
# on the NVIDIA driver. Rows (ISC_BENCH_CULLIDE_VARIANTS; ISC_CULLIDE_SPEED7_VARIANTS / _ROWS
# replace them):
#   cullide       the defaults (clusterAxes 1: the cluster level along z only)
#   cullide_ax3   clusterAxes=3: the defaults before this round (main at c9d6c05)
# The round's runs compared settings since removed, each named in its results file
# (bench/results/*-2026-11-27-cullide7-run*.txt): run 1 uploadFirst / poseWhileWaiting / axes=1,
# run 2 clusterResolution=16, run 3 spinWait (its cullide_block row is the final code).
# Process 1 also runs the patterns that take the deforming pile apart (CullideBench.cpp:
# deforming_same, deforming_gap, pile_gap): fresh vertices, the GPU's idle gap, the layout.
# Pile rows back to back (min 0.5 s); deforming rows and the patterns 80 calls each.
# ISC_CULLIDE_SPEED7_PATTERNS= (empty) leaves the patterns out; without packed tests only accuracy runs.
# Usage on the GPU machine, from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN, relative to the root or absolute; default .devrun):
#   ISC_DEVRUN=.devrun-cullide-7 bash bench/gpu/cullide-speed-7.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (8 bunnies, 8 calls, 20 poses, one process).
# Writes under $OUT: gpu.txt, cullide-p1.txt (.json), cullide-p2.txt, cullide-p3.txt,
# accuracy-tests.txt.
set -uo pipefail
. bench/gpu/packed.sh "${ISC_DEVRUN:-.devrun}"  # dev, bin, the libraries, the bunny, EGL
out=${OUT:-/tmp/out}; mkdir -p "$out"
size=100; calls=80; poses=200; procs=3
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then size=8; calls=8; poses=20; procs=1; fi
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"; date -u; } \
  > "$out/gpu.txt"
cat "$out/gpu.txt"
variants=${ISC_CULLIDE_SPEED7_VARIANTS:-"cullide_ax3:clusterAxes=3"}
rows1=${ISC_CULLIDE_SPEED7_ROWS:-"cullide|cullide_ax3|cpu|peel"}
for p in $(seq 1 $procs); do
  rows=$rows1; patterns=""
  [ "$p" = 1 ] && patterns=${ISC_CULLIDE_SPEED7_PATTERNS-"deforming_same,deforming_gap,pile_gap"}
  echo "=== process $p"
  ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=$calls ISC_BENCH_CULLIDE_VARIANTS="$variants" \
  ISC_BENCH_CULLIDE_PATTERNS="$patterns" \
    cullide_process "$out" "$p" 100 "^(pile|deforming|deforming_same|deforming_gap|pile_gap)/$size/($rows)/"
done
{
  cullide_accuracy "$poses"
  run_tests "$dev"/tests/isc_test_cullide* "$dev"/tests/isc_test_pile_cullide
} > "$out/accuracy-tests.txt"
grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
