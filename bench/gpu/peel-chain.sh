#!/usr/bin/env bash
# Round e of issue 8's deforming pile (branch peel-chain): the GPU chain of peel's default
# call, timed per dispatch, the fused walk against the levels walk, the overlap of the exact
# test with the GPU, beside cpu on the same poses; then the peel tests and the accuracy run on
# the NVIDIA driver. From packed binaries: bin/ (isc, isc_bench_peel), tests/ (isc_test_peel),
# lib/, data/bunny.obj in one folder (the first argument, default .devrun-peel-chain; see
# bench/gpu/pack.sh for what goes in it). Run from the repository root there, after the GL debs
# are unpacked (`for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig`):
#   bench/gpu/peel-chain.sh [packed-dir]   (the lead: ISC_PACK_TESTS=1 bench/gpu/pack.sh build/release,
#                                           then bench/gpu/peel-chain.sh .devrun)
# Writes to $OUT (at most 8 files):
#   machine.txt    GPU, driver, cores
#   peel.json/.txt isc_bench_peel: pile/100 and deform/100 with cpu and peel (defaults: fused
#                  walk, one fence), and chain/... (peel_overlap, peel_passes, peel_notimers,
#                  peel_levels, peel_levels_passes, peel_levels_notimers); medians of
#                  PEEL_CHAIN_REPS (default 5) repetitions of 0.1 s each (about 5 s a row)
#   tests.txt      isc_test_peel on this GL (every peel test: rays on with the pairing grid's
#                  uGridLevels, the fused walk, the split call)
#   accuracy.txt   isc accuracy --detector peel (defaults, 200 poses)
# Env: PEEL_CHAIN_REPS, PEEL_CHAIN_QUICK=1 (tiny sizes, for a check on llvmpipe).
# About 2.5 minutes on an H100 (16 bench rows ~ 90 s, the tests ~ 20 s, accuracy ~ 5 s).
set -uo pipefail
dir=${1:-.devrun-peel-chain}
case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
bin=$dir/bin
export LD_LIBRARY_PATH=$dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ISC_BUNNY_OBJ=$dir/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/peel-chain-out}
mkdir -p "$out"
reps=${PEEL_CHAIN_REPS:-5}
quick=${PEEL_CHAIN_QUICK:-0}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  echo "nproc $(nproc)"
  grep -m1 "model name" /proc/cpuinfo
  echo "loadavg $(cat /proc/loadavg)"
  date -u
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# 1. The detector calls, cpu beside peel on the same poses.
if [ "$quick" = 1 ]; then
  filter='^(deform/100/(cpu|peel)|chain/deform/100/peel_(overlap|passes|levels_passes))/'
  export ISC_PEEL_BENCH_MIN_TIME=0.01
  reps=1
else
  filter='^((pile|deform)/100/(cpu|peel)|chain/(pile|deform)/100/[a-z_]+)/'
  export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
fi
timeout 120 "$bin/isc_bench_peel" --benchmark_filter="$filter" --benchmark_repetitions=$reps \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/peel.json" --benchmark_out_format=json \
  > "$out/peel.txt" 2>&1
echo "bench rc=$?"
grep -E "median" "$out/peel.txt" | awk '{print $1, $2, $3}'

# 2. The peel tests on this GL.
if [ "$quick" = 1 ]; then tfilter='*FusedAndLevels*'; else tfilter='*'; fi
timeout 50 "$dir/tests/isc_test_peel" --gtest_filter="$tfilter" > "$out/tests.txt" 2>&1
echo "tests rc=$?"
grep -E "^\[  (PASSED|FAILED)|FAILED TEST|tests ran" "$out/tests.txt"

# 3. Accuracy with the defaults.
poses=$([ "$quick" = 1 ] && echo 4 || echo 200)
timeout 30 "$bin/isc" accuracy --detector peel --poses $poses --quiet > "$out/accuracy.txt" 2>&1
echo "accuracy rc=$?"
tail -2 "$out/accuracy.txt"
