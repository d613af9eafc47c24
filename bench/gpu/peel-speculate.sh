#!/usr/bin/env bash
# Issue 8's deforming-pile bar after the speculation of the exact test (2026-11-27), on the lent
# NVIDIA machine, from packed binaries (bench/gpu/pack.sh, ISC_PACK_TESTS=1 for the tests). Run
# from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-speculate.sh [packed-dir]      (default .devrun)
# Writes to $OUT:
#   machine.txt  GPU, driver, clocks, cores, OpenMP settings, load
#   peel.json/.txt isc_bench_peel: pile/100 and deform/100 with cpu and peel (defaults: speculate
#                on) and peel with speculate off (speculate/...), every row in one process on the
#                same poses; medians of PEEL_SPEC_REPS (default 5) repetitions of
#                ISC_PEEL_BENCH_MIN_TIME (default 0.1) s
#   tests.txt    isc_test_peel and isc_test_peel_units on the NVIDIA driver (when packed)
#   accuracy.txt isc accuracy --detector peel (defaults, 200 poses)
# Env: PEEL_SPEC_REPS, PEEL_SPEC_SKIP_TESTS=1, PEEL_SPEC_QUICK=1 (tiny, for a check on llvmpipe).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
out=${OUT:-/tmp/peel-speculate-out}
mkdir -p "$out"
reps=${PEEL_SPEC_REPS:-5}
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
if [ "${PEEL_SPEC_QUICK:-0}" = 1 ]; then reps=1; export ISC_PEEL_BENCH_MIN_TIME=0.01; fi
machine_info > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# 1. The detector calls: cpu, peel (speculate on), peel with speculate off; same poses.
filter='^((pile/100|deform/100)/(cpu|peel)|speculate/(pile|deform)/100/peel_nospeculate)/'
timeout 150 "$bin/isc_bench_peel" --benchmark_filter="$filter" --benchmark_repetitions=$reps \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/peel.json" --benchmark_out_format=json \
  > "$out/peel.txt" 2>&1
grep -E "median" "$out/peel.txt" | awk '{print $1, $2, $3}'

# 2. The tests on the NVIDIA driver, and the accuracy with the defaults.
if [ "${PEEL_SPEC_SKIP_TESTS:-0}" != 1 ] && [ -d "$dir/tests" ]; then
  for t in isc_test_peel_units isc_test_peel; do
    [ -x "$dir/tests/$t" ] || continue
    echo "=== $t"
    timeout 120 "$dir/tests/$t" 2>&1 | grep -E "^\[  (PASSED|FAILED) |^\[ RUN|Failure|error" | grep -v "^\[ RUN" || true
  done > "$out/tests.txt" 2>&1
  cat "$out/tests.txt"
fi
timeout 90 "$bin/isc" accuracy --detector peel --poses 200 --quiet > "$out/accuracy.txt" 2>&1
tail -3 "$out/accuracy.txt"
