#!/usr/bin/env bash
# The forms map, lean, axes, leanaxes and the diagnostics null, loads, boxes were taken out of main in
# the lead's review after the merge (only copy and trim are left): their rows exist only in the
# branch's binaries (merged history, 0cc56f0).
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 fifth session (branch
# peel-tripairs-14: the GPU side of peel's wait, the triangle pairs on the CPU walk's records), on
# the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from
# the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-tripairs-14.sh [packed-dir]      (packed.sh beside this script)
# PTP14_PROCS processes (default 3) of deform_b2b/100, each with the rows PTP14_ROWS, default the
# forms of the test hook ISC_PEEL_TRI_PAIRS (read at detector creation): peel_tpcopy (the records
# copied before the pass: the code before this round), peel_tpmap (read in the mapped staging
# buffer), peel_tplean (map, without the clears and uploads only the GPU walk reads), peel_tptrim
# (copy without them, the counters' clear and the walk's counts one copy; the default since run
# 2, so = peel there; not in run 1's binaries), peel_tpaxes /
# peel_tpleanaxes (copy / lean with the float test's 17 axes spread over the invocations), and the
# diagnostics peel_tpnull / peel_tploads / peel_tpboxes (the pass stopped at once, after the loads,
# after the box tests: they drop pairs, for gpu_filter_ms only).
# Same process, repetitions interleaved at random so that every row sees the same GPU clock;
# medians of PTP14_REPS, default 5; calls back to back.
# PTP14_TESTS=1 (default): isc_test_peel's TriPairsRecordsFormsKeepTheAnswer and
# CpuWalkGivesTheGpuWalksClusterPairs on the driver, `isc accuracy --detector peel` (200 poses)
# with the default and with ISC_PEEL_TRI_PAIRS=$PTP14_ACCURACY_FORM (default leanaxes; empty: not);
# PTP14_TESTS=2: peel's three test executables in full and the accuracy; 0: none.
# Writes $OUT/peel-tripairs-14.tgz (the device returns at most 8 files): machine.txt, tests.txt,
# accuracy*.txt, peel.txt (every process's rows), marks.txt, clocks.csv (nvidia-smi every 20 ms,
# read only), summary.txt.
# Run 1 (-1.txt, 768589e): the defaults (the null row did not compile on NVIDIA:
# return before barrier(), fixed after). Run 2 (-2.txt): PTP14_PROCS=4 PTP14_ACCURACY_FORM=
# PTP14_ROWS='cpu|peel_tpcopy|peel_tptrim|peel_tplean|peel_tpnull'.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/peel-tripairs-14-out
cat "$out/machine.txt"
form=${PTP14_ACCURACY_FORM-leanaxes}
case ${PTP14_TESTS:-1} in
  1)
    timeout 90 "$dev/tests/isc_test_peel" --gtest_filter='*TriPairsRecordsForms*:*CpuWalkGivesTheGpuWalks*' \
      > "$out/tests.txt" 2>&1
    echo "isc_test_peel (two tests) rc $?"; grep -E "^\[  (PASSED|FAILED)|Failure" "$out/tests.txt" | head -20
    timeout 120 "$bin/isc" accuracy --detector peel --poses 200 --seed 1 > "$out/accuracy.txt" 2>&1
    echo "accuracy rc $?"; tail -4 "$out/accuracy.txt"
    ;;
  2) peel_tests_and_accuracy "$out" ;;
esac
if [ "${PTP14_TESTS:-1}" != 0 ] && [ -n "$form" ]; then
  ISC_PEEL_TRI_PAIRS=$form timeout 120 "$bin/isc" accuracy --detector peel --poses 200 --seed 1 \
    > "$out/accuracy-$form.txt" 2>&1
  echo "accuracy (ISC_PEEL_TRI_PAIRS=$form) rc $?"; tail -4 "$out/accuracy-$form.txt"
fi
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
rows=${PTP14_ROWS:-cpu|peel_tpcopy|peel_tpmap|peel_tplean|peel_tpaxes|peel_tpleanaxes|peel_tpnull|peel_tploads|peel_tpboxes}
for ((n = 1; n <= ${PTP14_PROCS:-3}; n++)); do
  echo "## process $n: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" "^(variants/)?deform_b2b/100/($rows)/" "${PTP14_REPS:-5}" "${PTP14_LIMIT:-90}" "$n b2b"
done
stop_clocks
peel_summary "$out" median_ms cpu_refit_ms cpu_upload_ms gpu_filter_ms gpu_wait_ms cpu_exact_ms exact_speculate_ms \
  cluster_pairs screen_pairs filtered_pairs missed_pairs extra_pairs
clock_summary "$out"
[ -n "$final" ] && tar -czf "$final/peel-tripairs-14.tgz" -C "$out" .
exit 0
