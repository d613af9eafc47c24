#!/usr/bin/env bash
# The lead's check of 2026-11-28 (after merging peel-deform-9): the 1000-bunny pile (issue 8:
# <= 16 ms and <= 0.5x cpu), peel at main's defaults (the exact stage merged) beside
# peel_round8 (ISC_PEEL_EXACT_MERGE=0 + one vertex copy: the code before 2026-11-28) and cpu,
# PEEL_LARGE_PROCS processes (default 2), PEEL_LARGE_REPS repetitions each (default 3),
# interleaved at random in each process so every row sees the same GPU clock. On the lent
# machine from the repository root, binaries packed by bench/gpu/pack.sh into .devrun.
# Writes $OUT/peel.txt, marks.txt, machine.txt, and prints the medians.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"
setup_out /tmp/peel-large9-out
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
for ((n = 1; n <= ${PEEL_LARGE_PROCS:-2}; n++)); do
  echo "## process $n: large" >> "$out/peel.txt"
  peel_interleaved "$out" '^(variants/)?pile/1000/(cpu|peel|peel_round8)/' "${PEEL_LARGE_REPS:-3}" "${PEEL_LARGE_LIMIT:-150}" "$n large"
done
grep -E "^## |_median" "$out/peel.txt" | awk '{print $1, $2, $3}'
grep -E "_median" "$out/peel.txt" | grep -o "peel[_a-z0-9]*/.*cpu_exact_ms=[0-9.]*\|exact_sort_ms=[0-9.]*\|exact_test_ms=[0-9.]*\|cpu_setup_ms=[0-9.]*" | head -40
