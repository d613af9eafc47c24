#!/usr/bin/env bash
# The lead's last check of 2026-11-28 (main after the merges and the merge's list limit): the
# cullide detector beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS
# processes (default 3; issue 9's "within 1.5x of peel"; rows as cullide-speed-9.sh's
# detector part), then the 1000-bunny pile (peel, peel_round8, cpu; issue 8) and one process of
# the deforming pile back to back (cpu, peel, peel_round8, peel_nomerge), each interleaved at
# random. On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes under $OUT: cullide-p<N>.txt/.json, peel.txt, marks.txt, machine.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
setup_out /tmp/final-check-out
for ((p = 1; p <= ${CHECK_CULLIDE_PROCS:-3}; p++)); do
  echo "=== cullide process $p"
  ISC_BENCH_CULLIDE_SIZES=100 ISC_BENCH_CULLIDE_DEFORM_CALLS=${CHECK_DEFORM_CALLS:-80} ISC_BENCH_CULLIDE_VARIANTS="" \
  ISC_BENCH_CULLIDE_ORDER="cullide,cpu,peel" ISC_BENCH_CULLIDE_PATTERNS="" \
    cullide_process "$out" "$p" 90 "^(pile|deforming)/100/"
done
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
echo "## process 1: large" >> "$out/peel.txt"
peel_interleaved "$out" '^(variants/)?pile/1000/(cpu|peel|peel_round8)/' 3 100 "1 large"
echo "## process 2: b2b" >> "$out/peel.txt"
peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_round8|peel_nomerge)/' 3 90 "2 b2b"
grep -E "^## |_median" "$out/peel.txt" | awk '{print $1, $2, $3}'
