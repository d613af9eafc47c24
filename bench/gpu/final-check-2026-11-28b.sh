#!/usr/bin/env bash
# The lead's check of 2026-11-28 morning, on main after merging broadphase-10, cullide-10 and
# peel-deform-10 (run as a part of bench/gpu/round.sh, after its parts tests and accuracy):
#   1. the cullide detector beside cpu and peel on pile/100 and deforming/100 in CHECK_CULLIDE_PROCS
#      processes (default 3; issue 9's "within 1.5x of peel"; rows cullide, cpu, peel);
#   2. peel: two processes of the deforming pile back to back (cpu, peel, peel_round9 = the code
#      before peel-deform-10 by its hooks), then one of pile/100 and pile/1000 (cpu, peel), each
#      interleaved at random (issue 8; cpu now keeps a rigid object's posing when its pose is
#      unchanged, so the pile rows' cpu is this tree's);
#   3. the broadphase (bench/gpu/broadphase-10.sh parts broadphase, replay, large: 100 bodies in 3
#      processes, replay in 2, 1000 bodies and the validate rows).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes under $OUT: cullide-p<N>.txt/.json, peel.txt, marks.txt, machine.txt, broadphase/.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
setup_out /tmp/final-check-b-out
for ((p = 1; p <= ${CHECK_CULLIDE_PROCS:-3}; p++)); do
  echo "=== cullide process $p"
  ISC_BENCH_CULLIDE_SIZES=100 ISC_BENCH_CULLIDE_DEFORM_CALLS=80 ISC_BENCH_CULLIDE_VARIANTS="" \
  ISC_BENCH_CULLIDE_ORDER="cullide,cpu,peel" ISC_BENCH_CULLIDE_PATTERNS="" \
    cullide_process "$out" "$p" 60 "^(pile|deforming)/100/"
done
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for p in 1 2; do
  echo "## process $p: b2b" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?deform_b2b/100/(cpu|peel|peel_round9)/' 3 60 "$p b2b"
done
echo "## process 3: piles" >> "$out/peel.txt"
peel_interleaved "$out" '^(variants/)?pile/(100|1000)/(cpu|peel)/' 3 90 "3 piles"
grep -E "^## |_median" "$out/peel.txt" | awk '{print $1, $2, $3}'
mkdir -p "$out/broadphase"
OUT=$out/broadphase ISC_DEVRUN=$dir ISC_BP10_PARTS="broadphase replay large" bash "$(dirname "${BASH_SOURCE[0]}")/broadphase-10.sh"
