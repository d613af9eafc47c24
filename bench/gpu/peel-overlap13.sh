#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-28 (branch peel-overlap-13:
# the triangle pairs started on the CPU walk's first records, in chunks, while the CPU still boxes
# and walks), on the lent NVIDIA machine from packed binaries (bench/gpu/pack.sh with
# ISC_PACK_TESTS=1). Run from the repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-overlap13.sh [packed-dir]      (packed.sh beside this script)
# The overlap was taken out of main after the round: its rows exist only in the branch's binaries
# (merged history, e387174); on later trees only the rows cpu and peel run.
# PEELO13_PROCS processes (default 3), each with the rows PEELO13_ROWS (default cpu, peel (since
# 2026-11-28 13:25 the triangle pairs in one dispatch after the region, as before this round),
# peel_overlap = ISC_PEEL_OVERLAP=2, read at detector creation: the triangle pairs started in the
# region on the CPU walk's chunks, read from the mapped staging buffer, no barrier between them;
# peel_overlapcopy = ISC_PEEL_OVERLAP=1: each chunk copied to the cluster pairs' buffer first;
# peel_overlapbarrier = 2 and ISC_PEEL_OVERLAP_BARRIER=1: a barrier after each chunk;
# peel_chunk512 = 2 and ISC_PEEL_OVERLAP_CHUNK=512). The runs had other defaults and row names:
# run 1 (-1.txt, 42cc2d5: 'peel' = chunks copied, a barrier after each) the rows cpu, peel,
# peel_nooverlap (=0), peel_overlapmap (=2), peel_chunk512 and peel_chunk2048; run 2 (-2.txt,
# 185bcc1: 'peel' = today's peel_overlap) cpu, peel, peel_nooverlap, peel_overlapcopy,
# peel_overlapbarrier (BARRIER=1 alone, =2 then the default) and peel_chunk512 (CHUNK alone);
# same process, repetitions interleaved at random so that every row sees the same GPU clock;
# medians of PEELO13_REPS, default 5. Calls back to back (the b2b pattern).
# PEELO13_PILE=0 (default): no pile/100 process (=1: one, cpu and peel; its boxes are the GPU's).
# PEELO13_TESTS=1 (default): isc_test_peel, isc_test_peel_units, isc_test_detector_lifetime and
# isc accuracy --detector peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt,
# accuracy.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-overlap13-out
[ "${PEELO13_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEELO13_REPS:-5}
procs=()
for ((n = 1; n <= ${PEELO13_PROCS:-3}; n++)); do procs+=(b2b); done
[ "${PEELO13_PILE:-0}" = 1 ] && procs+=(pile)
n=0
for p in "${procs[@]}"; do
  n=$((n + 1))
  limit=75 r=$reps
  case $p in
    b2b) filter="^(variants/)?deform_b2b/100/(${PEELO13_ROWS:-cpu|peel|peel_overlap|peel_overlapcopy|peel_overlapbarrier|peel_chunk512})/" ;;
    pile) filter='^pile/100/(cpu|peel)/' r=${PEELO13_PILE_REPS:-3} ;;
  esac
  echo "## process $n: $p" >> "$out/peel.txt"
  peel_interleaved "$out" "$filter" "$r" "$limit" "$n $p"
done
stop_clocks
# Summary: per process, the median rows' time and the call's counters.
peel_summary "$out" median_ms cpu_setup_ms cpu_upload_ms cpu_refit_ms cpu_walk cpu_walk_mode cpu_walk_ms cpu_walk_thread_ms walk_tests \
  cpu_walk_overflow overlap overlap_records overlap_last_records overlap_ms triangle_dispatches vertex_copies cluster_pairs screen_pairs gpu_cull_ms gpu_filter_ms gpu_wait_ms cpu_exact_ms \
  exact_speculated tri_tri_tests missed_pairs extra_pairs
# Per process, the SM clock's samples while it ran (from marks.txt and clocks.csv).
clock_summary "$out"
