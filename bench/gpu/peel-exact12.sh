#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-exact-12:
# the exact stage's flat merge, PeelExact::runFlat), on the lent NVIDIA machine from packed
# binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from the repository root there, after
# the GL debs are unpacked:
#   bench/gpu/peel-exact12.sh [packed-dir]      (default .devrun; packed.sh beside this script)
# PEX12_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Then isc_bench_peel_exact (the exact stage alone on the host's cores, no GL) in processes with
# ISC_PEEL_EXACT_FLAT=1 / 0 alternating (PEX12_EXACT_CALLS calls each, default 300), then with
# the flat path's phase timers (ISC_PEEL_EXACT_PHASES=1) and PEX12_CHUNKS chunks per thread
# (default "8 1 32").
# Then PEX12_PROCS processes (default 3) of the rows cpu, peel and peel_noflat
# (ISC_PEEL_EXACT_FLAT=0: the merge before this branch), repetitions (PEX12_REPS, default 5,
# of 0.1 s) interleaved at random so that every row sees the same GPU clock.
# Writes to $OUT: machine.txt, tests.txt, accuracy.txt, exact.txt, clocks.csv, marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-exact12-out
[ "${PEX12_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
peel_exact_ab "$out" ISC_PEEL_EXACT_FLAT "${PEX12_EXACT_CALLS:-300}"
for c in ${PEX12_CHUNKS:-8 1 32}; do
  echo "PHASES chunks=$c $(ISC_PEEL_EXACT_PHASES=1 ISC_PEEL_EXACT_CHUNKS=$c timeout 60 "$bin/isc_bench_peel_exact" \
    "${PEX12_EXACT_CALLS:-300}" 2>&1 | tr '\n' ' ')" >> "$out/exact.txt"
done
tail -n 3 "$out/exact.txt"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((n = 1; n <= ${PEX12_PROCS:-3}; n++)); do
  echo "## process $n: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_noflat)/' "${PEX12_REPS:-5}" 75 "$n b2b"
done
stop_clocks
peel_summary "$out" median_ms gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_remember_ms \
  exact_reused exact_speculated tri_tri_tests filtered_pairs missed_pairs extra_pairs
clock_summary "$out"
