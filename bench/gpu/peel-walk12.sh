#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-walk-12:
# the cluster walk on the CPU), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh
# with ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-walk12.sh [packed-dir]      (default .devrun; packed.sh beside this script)
# PEELW12_PROCS processes (default 3), each with the rows cpu, peel, peel_gpuwalk
# (ISC_PEEL_CPU_WALK=0, read at detector creation: the cluster walk on the GPU, the code before
# this round) and peel_noflush (ISC_PEEL_WALK_FLUSH=0: the records' copy not flushed at once,
# runs 1-3's form); same process, repetitions
# interleaved at random so that every row sees the same GPU clock; medians of PEELW12_REPS,
# default 5. Earlier rows (their binaries): run 1 (h200-2026-11-28-peelwalk12-1.txt, 2bbe9c2)
# cpu, peel (then the walk after a barrier) and peel_gpuwalk; run 2 (-2.txt, 615c9d0) cpu, peel
# (then each pair walked once its parts are boxed, with a prefetch), peel_gpuwalk,
# peel_walkbarrier (ISC_PEEL_CPU_WALK=1) and peel_walknopf (ISC_PEEL_WALK_PREFETCH=0, since the
# default; the prefetch and its hook were taken out after the session); run 3 (-3.txt, c2e0cf8) cpu, peel, peel_gpuwalk
# and peel_boxcopy (ISC_PEEL_RECORD_BOXES=0: records without the clusters' boxes, the node boxes
# copied).
# PEELW12_PILE=1 (default): then one process with pile/100 (cpu, peel; PEELW12_PILE_REPS
# repetitions, default 3; the rigid pile's boxes are the GPU's, so no CPU walk there).
# PEELW12_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-walk12-out
[ "${PEELW12_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEELW12_REPS:-5}
procs=()
for ((n = 1; n <= ${PEELW12_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEELW12_PILE:-1}" = 1 ] && procs+=(pile)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=75 r=$reps
  case $p in
    b2b) filter='^(variants/)?deform_b2b/100/(cpu|peel|peel_gpuwalk|peel_noflush)/' ;;
    pile) filter='^pile/100/(cpu|peel)/' r=${PEELW12_PILE_REPS:-3} ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms cpu_walk cpu_walk_mode cpu_walk_ms cpu_walk_thread_ms walk_tests \
  cpu_walk_overflow vertex_copies cluster_pairs screen_pairs gpu_cull_ms gpu_filter_ms gpu_wait_ms cpu_exact_ms \
  exact_speculated tri_tri_tests missed_pairs extra_pairs
# Per process, the SM clock's samples while it ran (from marks.txt and clocks.csv).
clock_summary "$out"
