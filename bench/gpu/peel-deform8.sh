#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-27 late night (branch
# peel-deform-8), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with
# ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-deform8.sh [packed-dir]      (default .devrun)
# PEEL8_PROCS processes (default 3), each with the rows cpu, peel and (test hooks, read at
# detector creation; same process, repetitions interleaved at random so that every row sees the
# same GPU clock) peel_groupedexact (ISC_PEEL_EXACT_LOOKUP=0: the exact stage groups and sorts
# the whole list, the intersecting pairs speculated only), peel_ownsync (ISC_PEEL_FUSED_SYNC=0:
# the vertex conversion in its own parallel region before the boxes'), peel_round7 (both:
# the code before this round) and, from run 2, peel_nohash (ISC_PEEL_EXACT_HASH=0: the lookup
# searches each listed pair in its group instead of the hash table made during the wait). PEEL8_RIGID=1 (default): then one process with pile/100 and
# deform_gap5/100 (cpu, peel, peel_round7). PEEL8_EXACT=1 (default): isc_bench_peel_exact (the
# exact stage alone on the CPU, no GL) with and without the lookup. PEEL8_TESTS=1 (default):
# isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and isc accuracy --detector
# peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), exact.txt, tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-deform8-out
[ "${PEEL8_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
[ "${PEEL8_EXACT:-1}" = 1 ] && peel_exact_ab "$out" ISC_PEEL_EXACT_LOOKUP 200
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEEL8_REPS:-5}
procs=()
for ((n = 1; n <= ${PEEL8_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEEL8_RIGID:-1}" = 1 ] && procs+=(rigid)
[ "${PEEL8_LARGE:-0}" = 1 ] && procs+=(large)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  case $p in
    b2b) filter='^(variants/)?deform_b2b/100/(cpu|peel|peel_groupedexact|peel_ownsync|peel_round7|peel_nohash)/' ;;
    rigid) filter='^(variants/)?(pile|deform_gap5)/100/(cpu|peel|peel_round7)/' ;;
    large) filter='^(variants/)?(pile/1000|scaling/16x_sub3)/(cpu|peel|peel_round7)/' ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$reps" 90 "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms gpu_cull_ms gpu_filter_ms \
  gpu_wait_ms cpu_exact_ms exact_sort_ms exact_test_ms exact_remember_ms exact_reused \
  exact_speculated tri_tri_tests missed_pairs extra_pairs
