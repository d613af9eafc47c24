#!/usr/bin/env bash
# ISC_PEEL_WALK_FORM=branchless (the branchless walk with one-byte flags) was taken out of main in the
# lead's review: its rows exist only in the branch's binaries (03db853); main has branch and padded.
# DISABLED_WalkTimePerTest (the per-test timing) was taken out of main in the lead's review (a test
# that asserts nothing); it exists only in the branch's binaries (merged history, 03db853).
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 fifth session (branch
# peel-region-14b: the CPU region before the triangle pairs, the cluster walk's box tests), on
# the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from
# the repository root there, after the GL debs are unpacked:
#   bash <folder>/peel-region-14b.sh [packed-dir]      (packed.sh beside this script)
# PR14B_PROCS processes (default 4) of deform_b2b/100, each with the rows PR14B_ROWS, default cpu
# and the forms of the test hook ISC_PEEL_WALK_FORM (read at detector creation):
# peel_walkbranch (the code before this round), peel_walkbranchless (the default at the run),
# peel_walkpadded (branchless, the walk's flags on their own cache lines).
# Same process, repetitions interleaved at random so that every row sees the same GPU clock;
# medians of PR14B_REPS, default 5; calls back to back.
# Before the rows: isc_test_peel's WalkFormsGiveTheSameClusterPairs and
# CpuWalkGivesTheGpuWalksClusterPairs, isc_test_peel_units' BranchlessWalkIsTheWalkRecordForRecord
# and (not a test) DISABLED_WalkTimePerTest on the driver's host, `isc accuracy --detector peel`
# (200 poses) with the default.
# Writes $OUT/peel-region-14b.tgz (the device returns at most 8 files): machine.txt, tests.txt,
# accuracy.txt, peel.txt (every process's rows), marks.txt, clocks.csv (nvidia-smi every 20 ms,
# read only), summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/peel-region-14b-out
cat "$out/machine.txt"
timeout 90 "$dev/tests/isc_test_peel" --gtest_filter='*WalkFormsGiveTheSame*:*CpuWalkGivesTheGpuWalks*' \
  > "$out/tests.txt" 2>&1
echo "isc_test_peel (two tests) rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure" "$out/tests.txt" | head -20
timeout 60 "$dev/tests/isc_test_peel_units" --gtest_filter='*BranchlessWalk*:*WalkTimePerTest*' \
  --gtest_also_run_disabled_tests >> "$out/tests.txt" 2>&1
echo "isc_test_peel_units (the walk's test and timing) rc $?"
grep -E "^\[  (PASSED|FAILED)|Failure|ns a test" "$out/tests.txt" | tail -10
timeout 120 "$bin/isc" accuracy --detector peel --poses 200 --seed 1 > "$out/accuracy.txt" 2>&1
echo "accuracy rc $?"; tail -4 "$out/accuracy.txt"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
rows=${PR14B_ROWS:-cpu|peel_walkbranch|peel_walkbranchless|peel_walkpadded}
for ((n = 1; n <= ${PR14B_PROCS:-4}; n++)); do
  echo "## process $n: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" "^(variants/)?deform_b2b/100/($rows)/" "${PR14B_REPS:-5}" "${PR14B_LIMIT:-75}" "$n b2b"
done
stop_clocks
peel_summary "$out" median_ms cpu_setup_ms cpu_refit_ms cpu_upload_ms cpu_walk_ms cpu_walk_thread_ms walk_tests \
  gpu_wait_ms cpu_exact_ms cluster_pairs missed_pairs extra_pairs
clock_summary "$out"
[ -n "$final" ] && tar -czf "$final/peel-region-14b.tgz" -C "$out" .
exit 0
