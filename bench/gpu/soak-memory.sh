#!/usr/bin/env bash
# The soak's memory growth (issue 14, docs/robustness.md): is it ours or the driver's?
# isc_bench_lifetime (bench/detectors/LifetimeBench.cpp) in one process per case:
#   recreate: each cycle makes the detector, 3 detect() calls on 100 bunnies, destroys it
#   reuse:    one detector for all cycles, 3 calls per cycle
#   create-only: make and destroy, no detect()
# for cullide, slices and peel (the soak's jumps came with cullide and slices), then the raw-GL
# probe of a persistently mapped read-back buffer deleted while mapped / after unmapping.
# Then (part `switch`, to $OUT/soak-memory-switch.txt) the soak's pattern without the physics:
# every GPU detector in turn, 3 calls each, for ROUNDS rounds, destroyed at each switch (as the
# dispatcher does) and, in a second process, made once and kept alive (the proposed remedy).
# PARTS picks: "lifetime switch" (default); h100-2026-11-25-soak-memory.txt is the lifetime part.
# Each row: resident MiB, after malloc_trim, GL buffer bytes and live GL objects of every kind.
# Usage (device): bench/gpu/soak-memory.sh <bin-dir>   writes $OUT/soak-memory.txt
# Here (llvmpipe, small): CYCLES=3 BODIES=20 bench/gpu/soak-memory.sh build/release/bench/detectors
set -uo pipefail
bin=${1:-.devrun-soak-memory/bin}
out=${OUT:-/tmp}/soak-memory.txt
cycles=${CYCLES:-6}
bodies=${BODIES:-100}
limit=${CASE_LIMIT_S:-25}
parts=${PARTS:-lifetime switch}
if [[ " $parts " == *" lifetime "* ]]; then
{
  echo "# bench/gpu/soak-memory.sh: $(date -u +%FT%TZ), cycles $cycles, bodies $bodies"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# GPU: /'
  detector() {
    for mode in recreate reuse create-only; do
      echo "## $mode $1"
      timeout "$limit" "$bin"/isc_bench_lifetime "$mode" "$1" "$cycles" "$bodies" 3 2>&1 || echo "# exit $?"
    done
  }
  detector cullide
  detector slices
  for m in no-unmap unmap; do
    echo "## map-probe $m"
    timeout "$limit" "$bin"/isc_bench_lifetime map-probe "$m" "$cycles" 16 2>&1 || echo "# exit $?"
  done
  detector peel
} 2>&1 | tee "$out"
fi
if [[ " $parts " == *" switch "* ]]; then
{
  echo "# bench/gpu/soak-memory.sh switch: $(date -u +%FT%TZ), rounds ${ROUNDS:-3}, bodies $bodies"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/# GPU: /'
  for mode in switch switch-keep; do
    echo "## $mode all"
    timeout "${SWITCH_LIMIT_S:-90}" "$bin"/isc_bench_lifetime "$mode" all "${ROUNDS:-3}" "$bodies" 3 2>&1 || echo "# exit $?"
  done
} 2>&1 | tee "${out%.txt}-switch.txt"
fi
