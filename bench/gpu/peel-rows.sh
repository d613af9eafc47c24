#!/usr/bin/env bash
# A peel round of hook rows on the deforming pile (the lead's rounds, 2026-11-29 eighth session):
#   bash bench/gpu/peel-rows.sh <archive name> "<rows: cpu|peel|peel_x...>" "<HOOK=v> ..."
#   0. isc_test_peel on the NVIDIA driver with the hooks of the third argument set, and
#      `isc accuracy --detector peel` (200 poses) with them;
#   1. PROCS processes (default 6) of deform_b2b/100 with the rows named, five repetitions of
#      0.1 s each interleaved at random (bench/gpu/packed.sh peel_b2b_processes).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/<archive name>.tgz: tests.txt, accuracy.txt, peel.txt, summary.txt, marks.txt,
# clocks.csv, machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
name=$1 rows=$2 hooks=${3:-}
round_begin "$name"
# shellcheck disable=SC2086
(export $hooks; TEST_LIMIT=150 run_tests "$dev/tests/isc_test_peel"; "$bin/isc" accuracy --detector peel --poses 200) \
  > "$out/tests.txt" 2>&1
grep -E "^(=== |rc=|\[  PASSED|\[  FAILED)|accuracy:" "$out/tests.txt"
peel_b2b_processes "$out" "${PROCS:-6}" "$rows" 80
round_end "$name"
