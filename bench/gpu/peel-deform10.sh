#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 morning (branch
# peel-deform-10), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with
# ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-deform10.sh [packed-dir]      (default .devrun)
# PEEL10_PROCS processes (default 3), each with the rows cpu, peel and (test hooks, read at
# detector creation; same process, repetitions interleaved at random so that every row sees the
# same GPU clock) peel_round9 (ISC_PEEL_REFIT_SIMD=0 ISC_PEEL_STREAM_STORES=0: the code before
# this round), peel_refitscalar (the CPU's boxes one component at a time) and peel_nostream (the
# conversion and the boxes written with ordinary stores). Run 1 (h200-2026-11-28-peel10-1.txt)
# had, instead, rows of that binary's hooks ISC_PEEL_BOXES_AT_CONVERSION (peel_boxesafter,
# peel_boxesbyothers) and ISC_PEEL_UPLOADS_IN_REGION (peel_uploadsafter), dropped after it
# (docs/detectors/peel.md, "Round 2026-11-28 morning").
# PEEL10_RIGID=1 (default): then one process with pile/100 and deform_gap5/100 (cpu, peel,
# peel_round9; PEEL10_RIGID_REPS repetitions, default 3).
# PEEL10_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-deform10-out
[ "${PEEL10_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEEL10_REPS:-5}
procs=()
for ((n = 1; n <= ${PEEL10_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEEL10_RIGID:-1}" = 1 ] && procs+=(rigid)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=75 r=$reps
  case $p in
    b2b) filter='^(variants/)?deform_b2b/100/(cpu|peel|peel_round9|peel_refitscalar|peel_nostream)/' ;;
    rigid) filter='^(variants/)?(pile|deform_gap5)/100/(cpu|peel|peel_round9)/' r=${PEEL10_RIGID_REPS:-3} ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms vertex_copies gpu_cull_ms \
  gpu_filter_ms gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_reused exact_speculated \
  tri_tri_tests missed_pairs extra_pairs
# Per process, the SM clock's samples while it ran (from marks.txt and clocks.csv).
clock_summary "$out"
