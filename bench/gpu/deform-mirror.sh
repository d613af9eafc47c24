#!/usr/bin/env bash
# The lead's round of 2026-11-29 (fourteenth session): what a deforming mesh's read costs the
# dispatcher's step (SceneMirror::verticesChanged: the shape's vertices read again, swollen, and its
# triangle grid for the contacts), with the grid kept while the vertices stay within its slack (the
# default since) against the grid built again at every change (test hook ISC_DEFORM_GRID_SLACK=0).
# isc_bench_broadphase's deforming pile rows (100 bunnies wobbling each step, 180 steps) BM_DeformDbvt
# and BM_DeformCullideClusters (the cluster level alone), a different layout each repetition
# (ISC_BENCH_BROADPHASE_VARY_SEED=1; process p seeds 5(p-1)+1..5p, the same for both forms), five
# repetitions interleaved at random; per process the two forms one after the other, which first
# alternating. DM_PROCS processes (default 3), DM_DETECTORS the dispatcher's detectors (default
# "cpu"; also peel). On the lent machine from the repository root, binaries packed by
# bench/gpu/pack.sh. Writes $OUT/deform-mirror.tgz: machine.txt, <detector>-<form>-p<N>.txt
# (form slack or rebuild) and summary.txt (replay_summary.py: each row paired with Dbvt by seed; the
# two forms compared by the summary's per-file lines).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
round_begin deform-mirror
export ISC_BENCH_BROADPHASE_STEPS=${DM_STEPS:-180} ISC_BENCH_BROADPHASE_OBJECT_PASS=0 ISC_BENCH_BROADPHASE_VARY_SEED=1
run_form() {  # detector form process ("slack": the default, SceneMirror::kDeformingGridSlack)
  local hook=""
  [ "$2" = rebuild ] && hook=0
  echo "=== $1 $2 process $3"
  ISC_BENCH_BROADPHASE_DETECTOR=$1 ISC_DEFORM_GRID_SLACK=$hook ISC_BENCH_BROADPHASE_SEED=$((5 * ($3 - 1) + 1)) \
    timeout 200 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_Deform(Dbvt|CullideClusters)/100/" \
    --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true > "$out/$1-$2-p$3.txt" 2>&1
  echo "rc=$?"
}
for detector in ${DM_DETECTORS:-cpu}; do
  for ((p = 1; p <= ${DM_PROCS:-3}; p++)); do
    if ((p % 2)); then run_form "$detector" slack "$p"; run_form "$detector" rebuild "$p"
    else run_form "$detector" rebuild "$p"; run_form "$detector" slack "$p"; fi
  done
done
{
  for form in slack rebuild; do
    echo "# form $form"
    python3 "$(dirname "${BASH_SOURCE[0]}")/replay_summary.py" "$out"/*-$form-p*.txt
  done
  # The two forms paired by row and seed over the processes: slack's step_ms / rebuild's.
  python3 - "$out" "$(dirname "${BASH_SOURCE[0]}")" <<'PY'
import glob, re, statistics, sys
sys.path.insert(0, sys.argv[2])
from replay_summary import by_seed, rows_of
rows = {}
for path in glob.glob(sys.argv[1] + "/*-p*.txt"):
    detector, form = re.match(r".*/(\w+)-(slack|rebuild)-p\d+\.txt", path).groups()
    for (kind, name, bodies), reps in rows_of(path).items():
        for r in reps:
            rows.setdefault((detector, kind + name), {}).setdefault(form, {})[r["seed"]] = r
for (detector, row), forms in sorted(rows.items()):
    for key, a, b, r, _ in by_seed(forms, "slack", "rebuild", ("step_ms", "mirror_ms", "bp_mirror_ms", "contacts_ms")):
        print(f"{detector} {row} {key}: slack {a:.3f} ms, rebuild {b:.3f} ms, "
              f"median ratio {statistics.median(r):.3f} over {len(r)} seeds, below 1 in {sum(x < 1 for x in r)}")
PY
} | tee "$out/summary.txt"
round_end deform-mirror
