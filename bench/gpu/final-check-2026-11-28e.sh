#!/usr/bin/env bash
# ISC_CULLIDE_POLL_WAIT and ISC_CULLIDE_BRANCHLESS_COUNT were taken out after this script's runs
# (the lead's review of the fourth session): on later trees they are ignored.
# The lead's check of 2026-11-28 (fifth session), on main after merging peel-tripairs-14 (the
# clears and uploads nobody reads left out), peel-region-14b (the CPU walk without branches) and
# the cullide rounds of the session:
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 4) of the deforming pile back to back (cpu, peel,
#      peel_fifth0 = the code before the session: ISC_PEEL_TRI_PAIRS=copy, ISC_PEEL_WALK_FORM=branch),
#      interleaved at random (issue 8's 3x);
#   2. the cullide detector beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS
#      processes (default 4; issue 9's "within 1.5x of peel"), rows cullide, cullide_old (the code
#      before the session: ISC_CULLIDE_EARLY_CLEARS=0), cpu, peel in an order that changes with the process.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-e.tgz: tests.txt, tests-cullide-gl.txt, accuracy*.txt, peel.txt,
# marks.txt, cullide-p<N>.txt/.json, machine.txt, clocks.csv.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
# Everything goes into one archive under $OUT (the device returns at most 8 files).
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-e-out
cat "$out/machine.txt"
peel_tests_and_accuracy "$out"
TEST_LIMIT=150 run_tests "$dev/tests/isc_test_cullide" "$dev/tests/isc_test_cullide_broadphase" \
  "$dev/tests/isc_test_pile_cullide" "$dev/tests/isc_gl_tests" > "$out/tests-cullide-gl.txt" 2>&1
grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests-cullide-gl.txt"
cullide_accuracy 200 | tee "$out/accuracy-cullide.txt" | grep -v "^$"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((p = 1; p <= ${CHECK_PEEL_PROCS:-4}; p++)); do
  echo "## process $p: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_fifth0)/' 5 60 "$p b2b"
done
peel_summary "$out" cpu_refit_ms cpu_walk_ms gpu_wait_ms cpu_exact_ms exact_speculate_ms
CULLIDE_OLD_ENV=${CULLIDE_OLD_ENV:-ISC_CULLIDE_EARLY_CLEARS=0}
orders=("cullide,cullide_old,cpu,peel" "peel,cpu,cullide_old,cullide" "cullide_old,peel,cullide,cpu"
        "cpu,cullide,peel,cullide_old")
for ((p = 1; p <= ${CHECK_CULLIDE_PROCS:-4}; p++)); do
  order=${orders[$(((p - 1) % ${#orders[@]}))]}
  echo "=== cullide process $p ($order)"
  ISC_BENCH_CULLIDE_SIZES=100 ISC_BENCH_CULLIDE_DEFORM_CALLS=80 ISC_BENCH_CULLIDE_PATTERNS="" \
  ISC_BENCH_CULLIDE_VARIANTS="cullide_old:${CULLIDE_OLD_ENV}" \
  ISC_BENCH_CULLIDE_ORDER="$order" cullide_process "$out" "$p" 60 "^(pile|deforming)/100/"
done
stop_clocks
clock_summary "$out"
[ -n "$final" ] && tar -czf "$final/final-check-e.tgz" -C "$out" .
