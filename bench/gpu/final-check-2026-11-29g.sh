#!/usr/bin/env bash
# The lead's check of 2026-11-29 (seventh session), on main with the cluster level's update done by
# the query pass (cullide, the new default):
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 4) of the deforming pile back to back (cpu, peel),
#      interleaved at random (issue 8's 3x);
#   2. cullide beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS processes
#      (default 6; issue 9's "within 1.5x of peel"), with the row cullide_gu0
#      (ISC_CULLIDE_GROUP_UPDATE=0: the update pass, the code before), orders rotated.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-g.tgz: tests.txt, tests-cullide.txt, tests-gl.txt, accuracy*.txt, peel.txt,
# summary.txt, marks.txt, clocks.csv (peel), cullide/cullide-p<N>.txt/.json and cullide/clocks.csv,
# machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-g-out
cat "$out/machine.txt"
if [ "${CHECK_TESTS:-1}" = 1 ]; then
  peel_tests_and_accuracy "$out"
  cullide_tests_and_accuracy "$out"
  TEST_LIMIT=150 run_tests "$dev/tests/isc_gl_tests" > "$out/tests-gl.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests-gl.txt"
fi
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((p = 1; p <= ${CHECK_PEEL_PROCS:-4}; p++)); do
  echo "## process $p: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel)/' 5 60 "$p b2b"
done
stop_clocks
peel_summary "$out" cpu_refit_ms cpu_walk_ms gpu_wait_ms cpu_exact_ms exact_speculate_ms
clock_summary "$out"
mkdir -p "$out/cullide"
orders=("cullide,cullide_gu0,cpu,peel" "peel,cpu,cullide_gu0,cullide" "cullide_gu0,peel,cullide,cpu"
        "cpu,cullide,peel,cullide_gu0" "cullide,peel,cullide_gu0,cpu" "cullide_gu0,cpu,cullide,peel")
cullide_processes "$out/cullide" "${CHECK_CULLIDE_PROCS:-6}" 100 80 "cullide_gu0:ISC_CULLIDE_GROUP_UPDATE=0"
[ -n "$final" ] && tar -czf "$final/final-check-g.tgz" -C "$out" .
