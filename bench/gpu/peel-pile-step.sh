#!/usr/bin/env bash
# Issue 8's "pile step in the dispatcher with defaults, 100 bunnies: peel <= cpu", measured again
# after cpu's shape copies (2026-11-29, thirteenth session; the row's first measurement,
# h100-2026-11-25-round-peel-pile-step.json, averaged cpu's serial first-step build of every
# object's BVH): isc_bench_pile, rows BM_PileCpu/100 and BM_PilePeel/100 with peel's defaults
# (ISC_BENCH_PILE_PEEL_RESOLUTION=0, _AXES=0, as bench/gpu/peel-gpu.sh ran it), 180 steps, in
# PILE_PROCS processes (default 3), each with PILE_REPS repetitions (default 5) interleaved at random.
# Each row's pile is deterministic (every repetition repeats its trajectory) and the two detectors'
# piles differ (their contacts differ), as in the first measurement.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/peel-pile-step.tgz: machine.txt, pile-step-p<N>.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
round_begin peel-pile-step
for ((p = 1; p <= ${PILE_PROCS:-3}; p++)); do
  echo "=== process $p"
  ISC_BENCH_PILE_STEPS=180 ISC_BENCH_PILE_PEEL_RESOLUTION=0 ISC_BENCH_PILE_PEEL_AXES=0 \
    timeout 200 "$bin/isc_bench_pile" --benchmark_filter="BM_Pile(Cpu|Peel)/100/" \
    --benchmark_repetitions="${PILE_REPS:-5}" --benchmark_enable_random_interleaving=true \
    > "$out/pile-step-p$p.txt" 2>&1
  echo "rc=$?"
done
# Per process: each row's step_ms per repetition, their median, and peel's median / cpu's.
python3 - "$out"/pile-step-p*.txt <<'PY' | tee "$out/summary.txt"
import re, statistics, sys
for path in sys.argv[1:]:
    rows = {}
    for line in open(path, errors="replace"):
        m = re.match(r"BM_Pile(Cpu|Peel)/100/iterations:1\s.*?step_ms=([\d.]+)", line)
        if m:
            rows.setdefault(m.group(1), []).append(float(m.group(2)))
    med = {k: statistics.median(v) for k, v in rows.items()}
    ratio = f"{med['Peel'] / med['Cpu']:.3f}" if "Peel" in med and "Cpu" in med else "-"
    print(f"{path.rsplit('/', 1)[-1]}: " + "; ".join(f"{k} step_ms median {med[k]:.3f} (each {' '.join(f'{x:.2f}' for x in v)})"
                                                   for k, v in sorted(rows.items())) + f"; peel / cpu {ratio}")
PY
round_end peel-pile-step
