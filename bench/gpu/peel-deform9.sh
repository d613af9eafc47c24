#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 early morning (branch
# peel-deform-9), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with
# ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-deform9.sh [packed-dir]      (default .devrun)
# PEEL9_PROCS processes (default 3), each with the rows cpu, peel and (test hooks, read at
# detector creation; same process, repetitions interleaved at random so that every row sees the
# same GPU clock) peel_round8 (ISC_PEEL_EXACT_MERGE=0 ISC_PEEL_COPY_PIECES=1: the code before
# this round), peel_nomerge (the exact stage's lookup one by one) and peel_onecopy (the vertex
# copy in one piece after the conversion, the boxes' copy in attempt()).
# PEEL9_RIGID=1 (default): then one process with pile/100 and deform_gap5/100 (cpu, peel,
# peel_round8). PEEL9_LARGE=1 (default): one process with pile/1000
# (cpu, peel, peel_round8; one repetition each, so that each row is reported as it ends).
# PEEL9_EXACT=1 (default): isc_bench_peel_exact (the exact stage alone on the CPU, no GL) with
# the merge and with the lookup one by one.
# PEEL9_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first. Run 1 (h200-2026-11-28-peel9-1.txt) also had peel_copy8
# (8 pieces) and peel_inplacerefit (ISC_PEEL_REFIT_SCRATCH=0) rows, run 2
# (h100-2026-11-28-peel9-2.txt) peel_perpair (ISC_PEEL_OUTPUT_PER_PAIR=1) and peel_poll
# (ISC_PEEL_WAIT_POLL=1) rows, and pile/100/peel_perpair: hooks of those binaries, dropped after
# the runs (docs/detectors/peel.md, "Round 2026-11-28").
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), exact.txt, tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-deform9-out
[ "${PEEL9_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
[ "${PEEL9_EXACT:-1}" = 1 ] && peel_exact_ab "$out" ISC_PEEL_EXACT_MERGE 100
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEEL9_REPS:-5}
procs=()
for ((n = 1; n <= ${PEEL9_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEEL9_RIGID:-1}" = 1 ] && procs+=(rigid)
[ "${PEEL9_LARGE:-1}" = 1 ] && procs+=(large)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=90 r=$reps
  case $p in
    b2b) filter='^(variants/)?deform_b2b/100/(cpu|peel|peel_round8|peel_nomerge|peel_onecopy)/' ;;
    rigid) filter='^(variants/)?(pile|deform_gap5)/100/(cpu|peel|peel_round8)/' ;;
    large) filter='^(variants/)?pile/1000/(cpu|peel|peel_round8)/' limit=100 r=1 ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms vertex_copies gpu_cull_ms \
  gpu_filter_ms gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_remember_ms \
  exact_reused exact_speculated tri_tri_tests missed_pairs extra_pairs
