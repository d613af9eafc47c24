#!/usr/bin/env bash
# The grid (ISC_CULLIDE_FILTER_GRID) and the counter cpu_chain_after_cluster_ms were taken out of main
# in the lead's review after the merge: their rows exist only in the branch's binaries (merged
# history, 25bb7f0).
# Branch cullide-14's round (issue 9's detector bar: `cullide`'s detect() within 1.5x of `peel`'s
# on pile/100, medians, in every process): the filter without its arguments pass (a fixed grid,
# the workgroups striding over the cluster pairs; ISC_CULLIDE_FILTER_GRID). isc_bench_cullide in
# $ISC_CULLIDE14_PROCS processes (default 4), each with the rows (run 1; run 2: below)
#   cullide         the defaults (ISC_CULLIDE_FILTER_GRID=1: a grid of the last call's cluster
#                   pairs, an eighth more and 64 workgroups)
#   cullide_old     the code before: ISC_CULLIDE_FILTER_GRID=0 (arguments pass, indirect dispatch)
#   cullide_grid2k  ISC_CULLIDE_FILTER_GRID=2112 (16 workgroups per SM of the H200's 132, each
#                   taking ~4.6 of the pile's 9.7K cluster pairs)
#   cpu, peel       in the same process (the bar is relative to peel's)
# in a different order in each process; pile rows back to back (min 0.5 s), deforming rows 80
# calls with the bench's vertex update between calls. Then the cullide test executables on the
# NVIDIA driver and `isc accuracy --detector cullide` (200 poses: defaults, clusterAxes=3, axes=1,
# ISC_CULLIDE_FILTER_GRID=0 and =3).
# On the lent machine from the repository root, the binaries packed by bench/gpu/pack.sh and
# unpacked into .devrun, this script and packed.sh in one folder:
#   bash .devrun-cullide-14/cullide-14.sh
# Everything goes into $OUT/cullide-14.tgz (the device returns at most 8 files).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" "${ISC_DEVRUN:-.devrun}"
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/cullide-14-out
cat "$out/machine.txt"
procs=${ISC_CULLIDE14_PROCS:-4}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then procs=1; size=8; calls=8; poses=20; fi
if [ "${ISC_CULLIDE14_RUN:-1}" = 1 ]; then
  orders=("cullide,cullide_old,cullide_grid2k,cpu,peel" "peel,cpu,cullide_old,cullide,cullide_grid2k"
          "cullide_old,peel,cullide_grid2k,cullide,cpu" "cpu,cullide_grid2k,peel,cullide,cullide_old")
  variants="cullide_old:ISC_CULLIDE_FILTER_GRID=0;cullide_grid2k:ISC_CULLIDE_FILTER_GRID=2112"
else
  # Run 2 (ISC_CULLIDE14_RUN=2): cullide, cullide_old, cpu, peel only; no row of cullide's right
  # after cpu (the clock ramp), the new counter cpu_chain_after_cluster_ms in every cullide row.
  orders=("cullide,cullide_old,cpu,peel" "peel,cpu,cullide_old,cullide" "cullide_old,peel,cullide,cpu"
          "cpu,peel,cullide,cullide_old" "cullide,cpu,peel,cullide_old")
  variants="cullide_old:ISC_CULLIDE_FILTER_GRID=0"
fi
cullide_processes "$out" "$procs" "$size" "$calls" "$variants"
{
  cullide_accuracy "$poses"
  for hooks in "ISC_CULLIDE_FILTER_GRID=0" "ISC_CULLIDE_FILTER_GRID=3"; do
    echo "=== isc accuracy --detector cullide --poses $poses, $hooks"
    # shellcheck disable=SC2086
    env $hooks timeout 40 "$bin/isc" accuracy --detector cullide --poses "$poses" --quiet 2>&1
  done
  TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide "$dev"/tests/isc_test_cullide_broadphase \
    "$dev"/tests/isc_test_pile_cullide
} > "$out/accuracy-tests.txt"
grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/machine.txt"
[ -n "$final" ] && tar -czf "$final/cullide-14.tgz" -C "$out" .
