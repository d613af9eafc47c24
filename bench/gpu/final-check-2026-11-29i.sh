#!/usr/bin/env bash
# The lead's check of 2026-11-29 (eleventh session), on main (cullide's pair pass loading the pose
# pass's oriented boxes; peel's code the ninth session's):
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 4) of the deforming pile back to back (rows
#      CHECK_PEEL_ROWS, default "cpu|peel"), five repetitions interleaved at random (issue 8's 3x);
#   2. cullide beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS processes
#      (default 8; issue 9's "within 1.5x of peel"), with the rows of CHECK_CULLIDE_VARIANTS
#      (default cullide_op0 = ISC_CULLIDE_OBB_POSED=0), orders rotated, each row's calls split over
#      CULLIDE_REPS (default 5) runs interleaved at random with the other rows' (packed.sh), so that
#      the rows meet the same GPU clocks;
#   3. with CHECK_CULLIDE_SINGLE_PROCS=N, N more cullide processes with each row run once.
# Ran at 883758e with CHECK_PEEL_PROCS=4 CHECK_CULLIDE_PROCS=8 CHECK_CULLIDE_SINGLE_PROCS=4
# (h200-2026-11-29-eleventh-session-check*) and at 79500d3 with CHECK_PEEL_PROCS=6
# CHECK_CULLIDE_PROCS=8 CHECK_CULLIDE_VARIANTS="cullide_old:ISC_CULLIDE_OBB_POSED=0,ISC_CULLIDE_PAIR_SEEDS=0"
# (h200-2026-11-29-eleventh-session-final*), and at 2820d75 with CHECK_PEEL_PROCS=8 and the same
# cullide settings (h200-2026-11-29-eleventh-session-final-2*), and at fc808ce (thirteenth session)
# with CHECK_PEEL_PROCS=2 CHECK_CULLIDE_PROCS=6 (h200-2026-11-29-thirteenth-session-final-check.txt).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-i.tgz: tests.txt, tests-cullide.txt, tests-gl.txt, accuracy*.txt,
# peel.txt, summary.txt, marks.txt, clocks.csv (peel), cullide/cullide-p<N>.txt/.json and
# cullide/clocks.csv, machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-i-out
cat "$out/machine.txt"
[ "${CHECK_TESTS:-1}" = 1 ] && final_tests_and_accuracy "$out"
peel_b2b_processes "$out" "${CHECK_PEEL_PROCS:-4}" "${CHECK_PEEL_ROWS:-cpu|peel}" 80
export CULLIDE_REPS=${CULLIDE_REPS:-5}
cullide_check "$out" "${CHECK_CULLIDE_VARIANTS:-cullide_op0:ISC_CULLIDE_OBB_POSED=0}" "${CHECK_CULLIDE_PROCS:-8}"
# 3. CHECK_CULLIDE_SINGLE_PROCS (default 0) more processes with each row run once (the protocol before
#    CULLIDE_REPS), into single/cullide/.
if [ "${CHECK_CULLIDE_SINGLE_PROCS:-0}" -gt 0 ]; then
  unset CULLIDE_REPS
  mkdir -p "$out/single"
  cullide_check "$out/single" "${CHECK_CULLIDE_VARIANTS:-cullide_op0:ISC_CULLIDE_OBB_POSED=0}" "$CHECK_CULLIDE_SINGLE_PROCS"
fi
[ -n "$final" ] && tar -czf "$final/final-check-i.tgz" -C "$out" .
