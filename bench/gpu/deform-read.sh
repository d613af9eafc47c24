#!/usr/bin/env bash
# The lead's round of 2026-11-29 (fifteenth session): what a deforming shape's read costs the
# dispatcher's step (SceneMirror::verticesChanged) after this session's change (each mesh vertex
# gathered where Bullet keeps it; swollenVertices' cosines and angles two at a time with SSE2; the
# same vertices bit for bit), against the binary before it, packed beside the new one as
# $DR_BEFORE (default .devrun/bin/isc_bench_broadphase_before; bench/gpu/pack.sh does not make it:
# copy the earlier build's isc_bench_broadphase there before packing the archive).
# isc_bench_broadphase's deforming pile row BM_DeformDbvt/100 (100 bunnies wobbling each step, 180
# steps, `cpu` in the dispatcher, btDbvtBroadphase), a different layout each repetition
# (ISC_BENCH_BROADPHASE_VARY_SEED=1; process p seeds 5(p-1)+1..5p, the same for both binaries), five
# repetitions; per process the two binaries one after the other, which first alternating.
# DR_PROCS processes (default 2). On the lent machine from the repository root.
# Writes $OUT/deform-read.tgz: machine.txt, <form>-p<N>.txt (form after or before) and summary.txt
# (each key paired by seed: after / before).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
round_begin deform-read
before=${DR_BEFORE:-$bin/isc_bench_broadphase_before}
export ISC_BENCH_BROADPHASE_STEPS=${DR_STEPS:-180} ISC_BENCH_BROADPHASE_OBJECT_PASS=0 ISC_BENCH_BROADPHASE_VARY_SEED=1
export ISC_BENCH_BROADPHASE_DETECTOR=cpu
run_form() {  # form process
  local exe=$bin/isc_bench_broadphase
  [ "$1" = before ] && exe=$before
  echo "=== $1 process $2"
  ISC_BENCH_BROADPHASE_SEED=$((5 * ($2 - 1) + 1)) timeout 200 "$exe" --benchmark_filter="^BM_DeformDbvt/100/" \
    --benchmark_repetitions=5 > "$out/$1-p$2.txt" 2>&1
  echo "rc=$?"
}
for ((p = 1; p <= ${DR_PROCS:-2}; p++)); do
  if ((p % 2)); then run_form after "$p"; run_form before "$p"; else run_form before "$p"; run_form after "$p"; fi
done
python3 - "$out" "$(dirname "${BASH_SOURCE[0]}")" <<'PY' | tee "$out/summary.txt"
import statistics, sys
sys.path.insert(0, sys.argv[2])
from replay_summary import by_form, by_seed
forms = by_form(sys.argv[1])
print("deforming 100-bunny pile, cpu, btDbvtBroadphase: layouts paired by seed (after / before)")
keys = ("step_ms", "mirror_ms", "contacts_ms", "detect_ms", "final_contacts", "final_penetration")
for key, a, b, r, equal in by_seed(forms, "after", "before", keys):
    print(f"{key}: after {a:.4g}, before {b:.4g}, median ratio {statistics.median(r):.3f}, "
          f"below 1 in {sum(x < 1 for x in r)} of {len(r)}, equal in {equal}")
PY
round_end deform-read
