#!/usr/bin/env bash
# The lead's check of the shared gl::ConversionTeam (peel's and cullide's fused conversion, one
# class since 2026-11-28 morning's review): the GL, peel, cullide and lifetime test executables
# on the NVIDIA driver, `isc accuracy` of peel and cullide, then one process of the deforming pile
# back to back (cpu, peel, peel_round9) and one cullide process (cullide, cpu, peel) on pile/100
# and deforming/100. On the lent machine from the repository root, binaries packed by
# bench/gpu/pack.sh (ISC_PACK_TESTS=1). Writes under $OUT: tests.txt, peel.txt, cullide-p1.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
setup_out /tmp/check-conversion-team-out
cat "$out/machine.txt"
for t in isc_gl_tests isc_test_peel isc_test_peel_units isc_test_cullide isc_test_detector_lifetime; do
  echo "=== $t"; timeout 90 "$dir/tests/$t" --gtest_brief=1 2>&1 | tail -8
done | tee "$out/tests.txt" | grep -E "^===|FAILED|PASSED|tests? from .* ran"
for d in peel cullide; do echo "--- $d"; timeout 60 "$bin/isc" accuracy --detector $d --poses 200 --quiet 2>&1 | tail -1; done
export ISC_PEEL_BENCH_MIN_TIME=0.1
echo "## process 1: b2b" >> "$out/peel.txt"
peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_round9)/' 3 60 "1 b2b"
grep -E "^## |_median" "$out/peel.txt" | awk '{print $1, $2, $3}'
ISC_BENCH_CULLIDE_SIZES=100 ISC_BENCH_CULLIDE_DEFORM_CALLS=80 ISC_BENCH_CULLIDE_VARIANTS="" \
ISC_BENCH_CULLIDE_ORDER="cullide,cpu,peel" ISC_BENCH_CULLIDE_PATTERNS="" \
  cullide_process "$out" 1 60 "^(pile|deforming)/100/"
