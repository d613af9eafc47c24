#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-exact-12:
# the exact CPU stage after the GPU wait), on the lent NVIDIA machine from packed binaries
# (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from the repository root there, after the GL
# debs are unpacked:
#   bench/gpu/peel-exact12.sh [packed-dir]      (default .devrun; packed.sh beside this script)
# PEX12_TESTS=1 (default 0): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Then isc_bench_peel_exact (the exact stage alone on the host's cores, no GL) in processes with
# each hook of PEX12_AB (default ISC_PEEL_EXACT_ROOM) at 1 / 0 alternating (PEX12_EXACT_CALLS
# calls each, default 150); with PEX12_PHASES=1 then ISC_PEEL_EXACT_PHASES=1 processes for each
# value of ISC_PEEL_EXACT_SPLIT.
# Then PEX12_PROCS processes (default 2) of the deform_b2b/100 rows PEX12_ROWS (default
# cpu|peel|peel_room0; peel_room0 is ISC_PEEL_EXACT_ROOM=0, the room of the next call's pairs made
# anew every call as before), repetitions (PEX12_REPS, default 5, of 0.1 s) interleaved at
# random so that every row sees the same GPU clock.
# Runs 1 and 2 (h200-2026-11-28-peelexact12-1/-2.txt) measured the flat merge (PeelExact::runFlat,
# taken out after run 2) with the binaries of the branch's commits 3278c22 (run 1) and 2452524
# (run 2): PEX12_TESTS=1 PEX12_PROCS=3 PEX12_AB="ISC_PEEL_EXACT_FLAT ISC_PEEL_EXACT_SPLIT"
# (run 1: FLAT only, 300 calls, and phases with 8 / 1 / 32 chunks per thread) PEX12_PHASES=1
# PEX12_ROWS="cpu|peel|peel_noflat|peel_nosplit|peel_phases" (run 1: cpu|peel|peel_noflat);
# on later trees those hooks and rows do not exist.
# Writes to $OUT: machine.txt, tests.txt, accuracy.txt, exact.txt, clocks.csv, marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-exact12-out
[ "${PEX12_TESTS:-0}" = 1 ] && peel_tests_and_accuracy "$out"
calls=${PEX12_EXACT_CALLS:-150}
for hook in ${PEX12_AB:-ISC_PEEL_EXACT_ROOM}; do
  peel_exact_ab "$out" "$hook" "$calls" > /dev/null
done
if [ "${PEX12_PHASES:-0}" = 1 ]; then
  for v in 1 0; do
    echo "PHASES split=$v $(ISC_PEEL_EXACT_PHASES=1 ISC_PEEL_EXACT_SPLIT=$v timeout 60 "$bin/isc_bench_peel_exact" \
      "$calls" 2>&1 | tr '\n' ' ')" >> "$out/exact.txt"
  done
fi
cat "$out/exact.txt"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((n = 1; n <= ${PEX12_PROCS:-2}; n++)); do
  echo "## process $n: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" "^(variants/)?deform_b2b/100/(${PEX12_ROWS:-cpu|peel|peel_room0})/" "${PEX12_REPS:-5}" 75 "$n b2b"
done
stop_clocks
peel_summary "$out" median_ms gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_remember_ms \
  exact_reused exact_speculated tri_tri_tests filtered_pairs missed_pairs extra_pairs exact_fork_ms \
  exact_group_ms exact_split_merge_ms exact_split_wait1_ms exact_split_test_ms exact_split_wait2_ms \
  exact_work_first_ms exact_work_last_ms exact_join_ms exact_finish_ms
clock_summary "$out"
