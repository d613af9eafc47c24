#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-deform-11),
# on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run
# from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-deform11.sh [packed-dir]      (default .devrun; packed.sh beside this script)
# PEEL11_PROCS processes (default 3), each with the rows cpu, peel and (test hooks, read at
# detector creation; same process, repetitions interleaved at random so that every row sees the
# same GPU clock) peel_round10 (ISC_PEEL_CARRY_BOXES=0: every part's CPU boxes refitted in the
# fused region, the code before this round), peel_carry (=1: the last call's boxes widened by a
# bound on the vertices' motion, measured right after each object's conversion) and peel_carry2
# (=2: measured in the boxes' loop). Runs 1 and 2 (h200-2026-11-28-peel11-1/-2.txt) had the
# carried boxes on by default, so their `peel` rows are peel_carry's and run 1 had no
# peel_carry2; the default is off since (peel == peel_round10). The carried boxes' code, hook and
# rows were taken out after run 2: this script needs the binaries of branch peel-deform-11's
# commit baf06d8 (or 4711508); on later trees its peel_round10 / peel_carry* rows do not exist.
# PEEL11_GAP=1 (default): then one process with deform_gap5/100 (cpu, peel, peel_round10;
# PEEL11_GAP_REPS repetitions, default 3).
# PEEL11_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-deform11-out
[ "${PEEL11_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEEL11_REPS:-5}
procs=()
for ((n = 1; n <= ${PEEL11_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEEL11_GAP:-1}" = 1 ] && procs+=(gap)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=75 r=$reps
  case $p in
    b2b) filter='^(variants/)?deform_b2b/100/(cpu|peel|peel_round10|peel_carry|peel_carry2)/' ;;
    gap) filter='^(variants/)?deform_gap5/100/(cpu|peel|peel_round10)/' r=${PEEL11_GAP_REPS:-3} ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms vertex_copies carry_widened \
  carry_reused carry_far carry_done_ms cluster_pairs screen_pairs gpu_cull_ms gpu_filter_ms \
  gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_reused exact_speculated tri_tri_tests \
  missed_pairs extra_pairs
# Per process, the SM clock's samples while it ran (from marks.txt and clocks.csv).
clock_summary "$out"
