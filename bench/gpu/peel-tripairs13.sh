#!/usr/bin/env bash
# The shapes were taken out of main when the branch was merged: their rows exist only in the
# branch's binaries (merged history, c29fa58).
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-tripairs-13:
# the triangle pairs on the walk's records in one 32-invocation warp per cluster pair instead of 64
# invocations), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with
# ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-tripairs13.sh [packed-dir]      (packed.sh beside this script)
# PEELT13_PROCS processes (default 3) of deform_b2b/100, each with the rows PEELT13_ROWS (default
# cpu, peel_tp64 = ISC_PEEL_TRI_PAIRS=64, read at detector creation: 64 invocations per cluster
# pair, the code before this round; peel_tp32 = 32: one warp, each invocation loading a triangle
# of both clusters; peel_tp32d = 32d: the same, the float test inside the box test's loop, no
# survivors' list), then PEELT13_PILE (default 1) processes of pile/100 (the rigid pile: the GPU's
# boxes and walk, the same triangle pairs' forms) with cpu, peel and the three forms.
# Same process, repetitions interleaved at random so that every row sees the same GPU clock;
# medians of PEELT13_REPS, default 5. Calls back to back (the b2b pattern) on deform_b2b.
# PEELT13_TESTS=1 (default): isc_test_peel (TriPairsFormsKeepTheAnswer runs every form),
# isc_test_peel_units, isc_test_detector_lifetime, isc accuracy --detector peel first, and the
# accuracy again with ISC_PEEL_TRI_PAIRS=32 (accuracy-tp32.txt); PEELT13_TESTS=2: only
# isc_test_peel's TriPairsFormsKeepTheAnswer (every form on the driver), into tests.txt.
# Run 1 (-1.txt, 3b81f4a) had the defaults (the pile rows without peel_tp64a); run 2 (-2.txt)
# PEELT13_TESTS=2 PEELT13_PROCS=2 PEELT13_PILE=0 PEELT13_ROWS='cpu|peel_tp64|peel_tp64a' (64a =
# ISC_PEEL_TRI_PAIRS=64a: 64 invocations, the output slots claimed once per workgroup and round
# of the float test).
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt,
# accuracy.txt, accuracy-tp32.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-tripairs13-out
if [ "${PEELT13_TESTS:-1}" = 1 ]; then
  peel_tests_and_accuracy "$out"
  ISC_PEEL_TRI_PAIRS=32 timeout 60 "$bin/isc" accuracy --detector peel --poses 200 --seed 1 > "$out/accuracy-tp32.txt" 2>&1
  echo "accuracy (ISC_PEEL_TRI_PAIRS=32) rc $?"; tail -5 "$out/accuracy-tp32.txt"
elif [ "${PEELT13_TESTS:-1}" = 2 ]; then
  timeout 60 "$dev/tests/isc_test_peel" --gtest_filter='*TriPairsForms*' > "$out/tests.txt" 2>&1
  echo "TriPairsFormsKeepTheAnswer rc $?"; tail -3 "$out/tests.txt"
fi
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEELT13_REPS:-5}
procs=()
for ((n = 1; n <= ${PEELT13_PROCS:-3}; n++)); do procs+=(b2b); done
for ((n = 1; n <= ${PEELT13_PILE:-1}; n++)); do procs+=(pile); done
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=75 r=$reps
  case $p in
    b2b) filter="^(variants/)?deform_b2b/100/(${PEELT13_ROWS:-cpu|peel_tp64|peel_tp32|peel_tp32d})/" ;;
    pile) filter='^(variants/)?pile/100/(cpu|peel|peel_tp64|peel_tp32|peel_tp32d|peel_tp64a)/' r=${PEELT13_PILE_REPS:-3} ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_refit_ms cpu_walk cpu_walk_ms vertex_copies cluster_pairs screen_pairs \
  gpu_cull_ms gpu_filter_ms gpu_wait_ms cpu_exact_ms tri_tri_tests missed_pairs extra_pairs
# Per process, the SM clock's samples while it ran (from marks.txt and clocks.csv).
clock_summary "$out"
