#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-exact-13:
# each candidate of the exact stage handled after the wait by the thread that speculated its
# last call's pairs during it, PeelExact::setOwned), on the lent NVIDIA machine from packed
# binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from the repository root there, after
# the GL debs are unpacked:
#   bench/gpu/peel-exact13.sh [packed-dir]      (default .devrun; packed.sh beside this script)
# PEX13_TESTS=1 (default 0): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Then isc_bench_peel_exact (the exact stage alone on the host's cores, no GL; the speculation
# there runs on every thread of the team, the master included) in processes with
# ISC_PEEL_EXACT_OWNED at 1 / 0 alternating (PEX13_EXACT_CALLS calls each, default 150).
# Then PEX13_PROCS processes (default 3) of the deform_b2b/100 rows PEX13_ROWS (default
# cpu|peel|peel_owned0; peel_owned0 is ISC_PEEL_EXACT_OWNED=0, one shared speculation sweep and
# the candidates taken by any thread after the wait, as before), repetitions (PEX13_REPS,
# default 5, of 0.1 s) interleaved at random so that every row sees the same GPU clock.
# PEX13_EXACT_CALLS=0 leaves the stage alone out. PEX13_BIND_PROCS: below.
# Run 1 (h200-2026-11-28-peelexact13-1.txt, bd58da4): PEX13_TESTS=1 PEX13_PROCS=4. Run 2
# (-2.txt, with the counter exact_speculate_ms): PEX13_EXACT_CALLS=0 PEX13_PROCS=4 PEX13_BIND_PROCS=1.
# Writes to $OUT: machine.txt, tests.txt, accuracy.txt, exact.txt, clocks.csv, marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-exact13-out
[ "${PEX13_TESTS:-0}" = 1 ] && peel_tests_and_accuracy "$out"
if [ "${PEX13_EXACT_CALLS:-150}" != 0 ]; then
  peel_exact_ab "$out" ISC_PEEL_EXACT_OWNED "${PEX13_EXACT_CALLS:-150}" > /dev/null
  cat "$out/exact.txt"
fi
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((n = 1; n <= ${PEX13_PROCS:-3}; n++)); do
  echo "## process $n: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" "^(variants/)?deform_b2b/100/(${PEX13_ROWS:-cpu|peel|peel_owned0})/" "${PEX13_REPS:-5}" 75 "$n b2b"
done
# PEX13_BIND_PROCS more processes (default 0) with the OpenMP threads bound to cores
# (OMP_PROC_BIND=close OMP_PLACES=cores, every row of the process, cpu included).
for ((n = 1; n <= ${PEX13_BIND_PROCS:-0}; n++)); do
  echo "## process bound-$n: b2b, OMP_PROC_BIND=close OMP_PLACES=cores" >> "$out/peel.txt"
  OMP_PROC_BIND=close OMP_PLACES=cores \
    peel_interleaved "$out" "^(variants/)?deform_b2b/100/(${PEX13_ROWS:-cpu|peel|peel_owned0})/" "${PEX13_REPS:-5}" 75 "bound-$n b2b"
done
stop_clocks
peel_summary "$out" median_ms gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_remember_ms \
  exact_reused exact_speculated exact_speculate_ms tri_tri_tests filtered_pairs missed_pairs extra_pairs
clock_summary "$out"
