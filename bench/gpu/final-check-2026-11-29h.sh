#!/usr/bin/env bash
# The lead's check of 2026-11-29 (eighth session), on main with the splat's second pushed by the
# key's pass (cullide's default) and the triangle pairs' host output (peel, test hook
# ISC_PEEL_HOST_OUTPUT=1, row peel_hostout) beside it:
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      (also with ISC_PEEL_HOST_OUTPUT=1) and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 6) of the deforming pile back to back (cpu, peel,
#      peel_hostout), interleaved at random (issue 8's 3x);
#   2. cullide beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS processes
#      (default 6; issue 9's "within 1.5x of peel"), with the rows of CHECK_CULLIDE_VARIANTS
#      (default cullide_ps0 = ISC_CULLIDE_PUSH_SECOND=0: the second's own pass), orders rotated.
# Ran at 2e6eff2 (results h200-2026-11-29-eighth-session-final*). The host output and its row were
# taken out in the next commit: since then the peel_hostout row matches nothing and the hook is
# ignored (its accuracy and test runs are then the default's again). Ran again for the survivor
# chunks with CHECK_PEEL_ROWS="cpu|peel|peel_chunk1024" (results
# h200-2026-11-29-eighth-session-final-2*). The ninth session ran it at ccf303f with
# CHECK_PEEL_ROWS="cpu|peel", 8 and 8 processes (h200-2026-11-29-ninth-session-final*); the tenth at
# f4c8486 with CHECK_PEEL_ROWS="cpu|peel" CHECK_PEEL_PROCS=4 CHECK_CULLIDE_PROCS=4 and
# CHECK_CULLIDE_VARIANTS="cullide_old:ISC_CULLIDE_PAIR_LOADS=0,ISC_CULLIDE_POSE_PARTNERS=0,ISC_CULLIDE_POSE_CORNERS=0"
# (h200-2026-11-29-tenth-session-final*).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-h.tgz: tests.txt, tests-cullide.txt, tests-gl.txt, accuracy*.txt,
# peel.txt, summary.txt, marks.txt, clocks.csv (peel), cullide/cullide-p<N>.txt/.json and
# cullide/clocks.csv, machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-h-out
cat "$out/machine.txt"
if [ "${CHECK_TESTS:-1}" = 1 ]; then
  peel_tests_and_accuracy "$out"
  (export ISC_PEEL_HOST_OUTPUT=1; "$bin/isc" accuracy --detector peel --poses 200) 2>&1 \
    | tee "$out/accuracy-peel-hostout.txt" | grep accuracy
  (export ISC_PEEL_HOST_OUTPUT=1; TEST_LIMIT=150 run_tests "$dev/tests/isc_test_peel") > "$out/tests-peel-hostout.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED)" "$out/tests-peel-hostout.txt"
  cullide_tests_and_accuracy "$out"
  TEST_LIMIT=150 run_tests "$dev/tests/isc_gl_tests" > "$out/tests-gl.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests-gl.txt"
fi
peel_b2b_processes "$out" "${CHECK_PEEL_PROCS:-6}" "${CHECK_PEEL_ROWS:-cpu|peel|peel_hostout}" 80
cullide_check "$out" "${CHECK_CULLIDE_VARIANTS:-cullide_ps0:ISC_CULLIDE_PUSH_SECOND=0}" "${CHECK_CULLIDE_PROCS:-6}"
[ -n "$final" ] && tar -czf "$final/final-check-h.tgz" -C "$out" .
