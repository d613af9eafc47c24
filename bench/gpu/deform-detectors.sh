#!/usr/bin/env bash
# The lead's round of 2026-11-29 (fifteenth session): which detector a deforming world should use in
# our dispatcher. isc_bench_broadphase's deforming pile row BM_DeformDbvt/100 (100 bunnies wobbling
# each step, 180 steps, btDbvtBroadphase) with each detector of DD_DETECTORS (default "cpu peel
# auto") in the dispatcher, a different layout each repetition (ISC_BENCH_BROADPHASE_VARY_SEED=1;
# process p seeds 5(p-1)+1..5p, the same for every detector), five repetitions; per process the
# detectors one after the other, their order rotated. DD_PROCS processes (default 2). Then stock
# Bullet GImpact (btGImpactMeshShape with Bullet's own dispatcher) on seed 1 once
# (DD_GIMPACT=0: not), beside the same seed's rows. On the lent machine from the repository root,
# binaries packed by bench/gpu/pack.sh. Writes $OUT/deform-detectors.tgz: machine.txt,
# <detector>-p<N>.txt and summary.txt (each detector's keys paired by seed with cpu's).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
round_begin deform-detectors
export ISC_BENCH_BROADPHASE_STEPS=${DD_STEPS:-180} ISC_BENCH_BROADPHASE_OBJECT_PASS=0 ISC_BENCH_BROADPHASE_VARY_SEED=1
read -r -a detectors <<< "${DD_DETECTORS:-cpu peel auto}"
run_row() {  # detector process repetitions
  echo "=== $1 process $2"
  ISC_BENCH_BROADPHASE_DETECTOR=$1 ISC_BENCH_BROADPHASE_SEED=$((5 * ($2 - 1) + 1)) timeout 200 \
    "$bin/isc_bench_broadphase" --benchmark_filter="^BM_DeformDbvt/100/" --benchmark_repetitions="$3" \
    > "$out/$1-p$2.txt" 2>&1
  echo "rc=$?"
}
n=${#detectors[@]}
for ((p = 1; p <= ${DD_PROCS:-2}; p++)); do
  for ((k = 0; k < n; k++)); do run_row "${detectors[(k + p - 1) % n]}" "$p" 5; done
done
[ "${DD_GIMPACT:-1}" = 1 ] && run_row bullet-gimpact 1 1
python3 - "$out" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' | tee "$out/summary.txt"
import statistics, sys
sys.path.insert(0, sys.argv[2])
from replay_summary import by_form, by_seed
rows = by_form(sys.argv[1])
print("deforming 100-bunny pile, btDbvtBroadphase, each detector in our dispatcher (stock GImpact: Bullet's own)")
keys = ("step_ms", "collision_ms", "mirror_ms", "detect_ms", "contacts_ms", "final_contacts", "final_penetration")
for detector in sorted(rows, key=lambda d: (d != "cpu", d)):
    for key, a, b, r, _ in by_seed(rows, detector, "cpu", keys):
        print(f"{detector} {key}: median {a:.4g} over {len(r)} layouts (cpu {b:.4g}), ratio to cpu's on the same layout: "
              f"median {statistics.median(r):.3f}, below 1 in {sum(x < 1 for x in r)} of {len(r)}")
PY
round_end deform-detectors
