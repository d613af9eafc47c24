#!/usr/bin/env bash
# A cullide round of hook rows beside main (the lead's rounds of 2026-11-29, seventh session):
#   bash bench/gpu/cullide-rows.sh <archive name> "<row>:<HOOK=v>[,<HOOK=v>];..." "<HOOK=v> ..."
#   0. isc_test_cullide, isc_test_cullide_broadphase, isc_test_pile_cullide on the NVIDIA driver;
#      `isc accuracy --detector cullide` (200 poses) at the defaults, clusterAxes=3 and axes=1,
#      then again with the hooks of the third argument set (if any);
#   1. PROCS processes (default 6) of isc_bench_cullide on pile/100 and deforming/100, rows
#      cullide (main), the variants' rows, cpu and peel, each process starting at another row.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/<archive name>.tgz: tests-cullide.txt, accuracy-cullide.txt,
# accuracy-cullide-hooks.txt, cullide-p<N>.txt/.json, machine.txt, clocks.csv.
set -uo pipefail
# (packed.sh reads its folder from its first argument: the packed binaries in .devrun.)
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
name=$1 variants=$2 hooks=${3:-}
round_begin "$name"
cullide_tests_and_accuracy "$out"
if [ -n "$hooks" ]; then
  # shellcheck disable=SC2086
  (export $hooks; cullide_accuracy 200) | tee "$out/accuracy-cullide-hooks.txt" | grep -v "^$"
fi
procs=${PROCS:-6}
cullide_orders "$variants" "$procs"
cullide_processes "$out" "$procs" 100 80 "$variants"
: > "$out/marks.txt"
round_end "$name"
