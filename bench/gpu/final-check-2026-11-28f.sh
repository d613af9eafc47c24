#!/usr/bin/env bash
# The lead's check of 2026-11-28 (sixth session), on main after the fifth session's review
# (0c0488e: refactors tested on llvmpipe only, not yet on the NVIDIA driver), with settings that
# cost no code:
#   0. peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of peel
#      and cullide (200 poses);
#   1. peel: CHECK_PEEL_PROCS processes (default 4) of the deforming pile back to back (cpu, peel,
#      peel_team14 and peel_team15 = exactThreads 14 / 15: the team one or two threads short of the
#      16 cores, leaving the GL driver's thread a core), interleaved at random (issue 8's 3x);
#   2. the cullide detector beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS
#      processes (default 4; issue 9's "within 1.5x of peel"), with three settings as rows:
#      cullide_c4 (clusterResolution=4), cullide_cbox (clusterBoxes=true), cullide_cs32
#      (clusterSize=32), in an order that changes with the process.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes into $OUT/final-check-f.tgz: tests.txt, tests-cullide-gl.txt, accuracy*.txt, peel.txt,
# summary.txt, marks.txt, cullide-p<N>.txt/.json, machine.txt, clocks.csv.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/final-check-f-out
cat "$out/machine.txt"
if [ "${CHECK_TESTS:-1}" = 1 ]; then
  peel_tests_and_accuracy "$out"
  TEST_LIMIT=150 run_tests "$dev/tests/isc_test_cullide" "$dev/tests/isc_test_cullide_broadphase" \
    "$dev/tests/isc_test_pile_cullide" "$dev/tests/isc_gl_tests" > "$out/tests-cullide-gl.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests-cullide-gl.txt"
  cullide_accuracy 200 | tee "$out/accuracy-cullide.txt" | grep -v "^$"
  for set in clusterResolution=4 clusterBoxes=true clusterSize=32; do
    echo "=== isc accuracy --detector cullide --poses 200 --set $set"
    timeout 40 "$bin/isc" accuracy --detector cullide --poses 200 --set "$set" --quiet 2>&1
  done | tee "$out/accuracy-cullide-settings.txt" | grep -v "^$"
fi
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((p = 1; p <= ${CHECK_PEEL_PROCS:-4}; p++)); do
  echo "## process $p: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_team14|peel_team15)/' 5 60 "$p b2b"
done
peel_summary "$out" cpu_refit_ms cpu_walk_ms gpu_wait_ms cpu_exact_ms exact_speculate_ms
variants="cullide_c4:clusterResolution=4;cullide_cbox:clusterBoxes=true;cullide_cs32:clusterSize=32"
orders=("cullide,cullide_c4,cullide_cbox,cullide_cs32,cpu,peel" "peel,cpu,cullide_cs32,cullide_cbox,cullide_c4,cullide"
        "cullide_cbox,peel,cullide,cullide_cs32,cpu,cullide_c4" "cpu,cullide_c4,cullide_cs32,peel,cullide,cullide_cbox")
for ((p = 1; p <= ${CHECK_CULLIDE_PROCS:-4}; p++)); do
  order=${orders[$(((p - 1) % ${#orders[@]}))]}
  echo "=== cullide process $p ($order)"
  ISC_BENCH_CULLIDE_SIZES=100 ISC_BENCH_CULLIDE_DEFORM_CALLS=80 ISC_BENCH_CULLIDE_PATTERNS="" \
  ISC_BENCH_CULLIDE_VARIANTS="$variants" \
  ISC_BENCH_CULLIDE_ORDER="$order" cullide_process "$out" "$p" 90 "^(pile|deforming)/100/"
done
stop_clocks
clock_summary "$out"
[ -n "$final" ] && tar -czf "$final/final-check-f.tgz" -C "$out" .
