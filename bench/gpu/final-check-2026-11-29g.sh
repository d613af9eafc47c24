#!/usr/bin/env bash
# The lead's check of 2026-11-29 (seventh session), on main with the cluster level's update done by
# the query pass (cullide, the new default):
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 4) of the deforming pile back to back (cpu, peel),
#      interleaved at random (issue 8's 3x);
#   2. cullide beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS processes
#      (default 6; issue 9's "within 1.5x of peel"), with the rows of CHECK_CULLIDE_VARIANTS
#      (default cullide_gu0 = ISC_CULLIDE_GROUP_UPDATE=0: the update pass, the code before; the
#      session's last check: CHECK_CULLIDE_VARIANTS="cullide_ep0:ISC_CULLIDE_EARLY_PAIRS=0;
#      cullide_old:ISC_CULLIDE_GROUP_UPDATE=0,ISC_CULLIDE_EARLY_PAIRS=0"), orders rotated.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-g.tgz: tests.txt, tests-cullide.txt, tests-gl.txt, accuracy*.txt, peel.txt,
# summary.txt, marks.txt, clocks.csv (peel), cullide/cullide-p<N>.txt/.json and cullide/clocks.csv,
# machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-g-out
cat "$out/machine.txt"
if [ "${CHECK_TESTS:-1}" = 1 ]; then
  peel_tests_and_accuracy "$out"
  cullide_tests_and_accuracy "$out"
  TEST_LIMIT=150 run_tests "$dev/tests/isc_gl_tests" > "$out/tests-gl.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests-gl.txt"
fi
peel_b2b_processes "$out" "${CHECK_PEEL_PROCS:-4}" "cpu|peel" 60
# The variant rows (CHECK_CULLIDE_VARIANTS, "<row>:<HOOK=v>[,...];..."), each process starting at
# another row of cullide, the variants, cpu and peel.
cullide_check "$out" "${CHECK_CULLIDE_VARIANTS:-cullide_gu0:ISC_CULLIDE_GROUP_UPDATE=0}" "${CHECK_CULLIDE_PROCS:-6}"
[ -n "$final" ] && tar -czf "$final/final-check-g.tgz" -C "$out" .
