#!/usr/bin/env bash
# The half boxes (ISC_CULLIDE_HALF_BOXES) were taken out of main in the lead's review after the
# merge: their rows exist only in the branch's binaries (merged history, d1d3690).
# Branch cullide-14b's round (issue 9: `cullide`'s pile/100 call within 1.5x of `peel`'s in every
# process). Two changes of the GPU chain, each behind a hook read when the detector is made:
#   ISC_CULLIDE_EARLY_CLEARS  the chain's clears (wanted clusters, kept pairs, chain counters, the
#                             cluster level's depth words) queued with the early pose pass, so the
#                             GPU does them while the CPU makes the views and the pair list
#   ISC_CULLIDE_HALF_BOXES    each warp of the filter tests its half-cluster box (posed by the pose
#                             pass) against the other cluster's box before loading its triangles
# isc_bench_cullide in $ISC_CULLIDE14B_PROCS processes (default 4), rows in a different order each:
# run 1 (ISC_CULLIDE14B_RUN=1; both on by default then):
#   cullide          both on
#   cullide_old      both off (the code before: main at 57f65bb)
#   cullide_clears   the early clears alone
#   cullide_halves   the half boxes alone
# run 2 (the default; the half boxes off by default since run 1): cullide (the early clears),
#   cullide_old (ISC_CULLIDE_EARLY_CLEARS=0), cullide_halves (ISC_CULLIDE_HALF_BOXES=1)
#   cpu, peel        in the same process (the bar is relative to peel's)
# pile rows back to back (min 0.5 s), deforming rows 80 calls with the bench's vertex update
# between calls. Then `isc accuracy --detector cullide` (200 poses: defaults, clusterAxes=3, axes=1,
# both hooks off) and isc_test_cullide on the NVIDIA driver.
# On the lent machine from /work/main's root (the run tool copies /work/main):
#   ISC_DEVRUN=.devrun bash .devrun-cullide-14b/cullide-14b.sh   (packed.sh beside this script)
# Everything goes into $OUT/cullide-14b.tgz (the device returns at most 8 files).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/packed.sh" "${ISC_DEVRUN:-.devrun}"
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/cullide-14b-out
cat "$out/machine.txt"
procs=${ISC_CULLIDE14B_PROCS:-4}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then procs=1; size=8; calls=8; poses=20; fi
if [ "${ISC_CULLIDE14B_RUN:-2}" = 1 ]; then
  # Run 1 (commit 8d3bed5, both hooks on by default then).
  orders=("cullide,cullide_old,cullide_clears,cullide_halves,cpu,peel"
          "peel,cpu,cullide_old,cullide,cullide_halves,cullide_clears"
          "cullide_old,peel,cullide_clears,cullide,cpu,cullide_halves"
          "cpu,cullide_halves,peel,cullide_clears,cullide,cullide_old")
  variants="cullide_old:ISC_CULLIDE_EARLY_CLEARS=0,ISC_CULLIDE_HALF_BOXES=0"
  variants="$variants;cullide_clears:ISC_CULLIDE_HALF_BOXES=0;cullide_halves:ISC_CULLIDE_EARLY_CLEARS=0"
else
  # Run 2 (the half boxes off by default): cullide = the early clears, cullide_old = the code
  # before, cullide_halves = the defaults with the half boxes on; the new cpu_between_*_ms
  # counters split the CPU's time between the two flushes.
  orders=("cullide,cullide_old,cullide_halves,cpu,peel"
          "peel,cpu,cullide_old,cullide,cullide_halves"
          "cullide_old,peel,cullide_halves,cullide,cpu"
          "cpu,cullide_halves,peel,cullide,cullide_old")
  variants="cullide_old:ISC_CULLIDE_EARLY_CLEARS=0;cullide_halves:ISC_CULLIDE_HALF_BOXES=1"
fi
cullide_processes "$out" "$procs" "$size" "$calls" "$variants"
{
  cullide_accuracy "$poses"
  for hooks in "ISC_CULLIDE_EARLY_CLEARS=0 ISC_CULLIDE_HALF_BOXES=0" "ISC_CULLIDE_HALF_BOXES=1"; do
    echo "=== isc accuracy --detector cullide --poses $poses, $hooks"
    # shellcheck disable=SC2086
    env $hooks timeout 40 "$bin/isc" accuracy --detector cullide --poses "$poses" --quiet 2>&1
  done
  TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide
} > "$out/accuracy-tests.txt" 2>&1
grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/machine.txt"
if [ -n "$final" ]; then tar -czf "$final/cullide-14b.tgz" -C "$out" .; fi
