#!/usr/bin/env bash
# Branch cullide-9's round (issue 9's broadphase bar at 100 bodies: pairs <= 0.5x of
# btDbvtBroadphase alone AND a faster pile step, 0 lost), cpu in our dispatcher, isc_bench_broadphase:
#   cullide_clusters          the cluster level alone (ISC_BENCH_BROADPHASE_OBJECT_PASS=0), the
#                             pruning finished inside the dispatch (overlap: the dispatcher walks
#                             the cache and runs cpu while the GPU pass runs; the default)
#   (cullide_clusters_worker  cpu on a worker thread of the broadphase: runs 2-3 only; the
#                             option was removed after them, measured slower)
#   cullide_clusters_before   the same pass finished before the dispatch (overlap=false: main's path)
# (The runs of 2026-11-28 ran the code of their commit: run 1 and 2 at 54a0a27 / caaa25e, where the
# walk ran inside the overlap too; run 3 at ee9b63b, where cullide_clusters was the worker and
# cullide_clusters_inline today's default; bench/results/*-2026-11-28-cullide9-run*.txt say so.)
# at 100 bodies in $procs processes (default 3; google benchmark runs the rows in registration
# order: Dbvt, CullideClusters, CullideClustersBefore, each row --benchmark_repetitions=$reps times
# in a row); then cullide / cullide_before, the object pass (the broadphase's default level) with
# the overlap on / off, at 100 bodies; then 1000 bodies once (40 steps), with the validate rows
# (every pruned pair tested exactly: lost_pairs) of the cluster level at both sizes.
# Then the cullide detector beside cpu and peel on pile/100 and deforming/100 (one process,
# as cullide-speed-8.sh), accuracy and the cullide and broadphase tests on the NVIDIA driver.
# Usage on the GPU machine from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN; default .devrun):
#   ISC_DEVRUN=.devrun-cullide-9 bash .devrun-cullide-9/cullide-speed-9.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (2 steps, 1 process, 8-bunny detector rows).
# ISC_CULLIDE_SPEED9_PARTS (default "broadphase detector tests") picks the parts;
# ISC_CULLIDE_SPEED9_ROWS / _ROWS_1000 the rows at 100 / 1000 bodies (e.g. adding
# CullideClustersGuess1|CullideClustersGuess2: CullideBroadphaseSettings::guess), _VALIDATE the sizes
# of the validate rows, ISC_CULLIDE_SPEED9_NO_OBJECT_PASS=1 leaves the object-pass process out;
# part "replay" (not default) times collision detection alone on the recorded poses of one pile
# (isc_bench_broadphase's BM_Replay* rows), interleaved at random: the comparison without the
# pile's chaos.
# Writes under $OUT: gpu.txt, broadphase-p<N>.txt, broadphase-object-pass.txt, broadphase-1000.txt, cullide-p1.txt (.json),
# broadphase-replay.txt, accuracy-tests.txt.
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
out=${OUT:-/tmp/out}; mkdir -p "$out"
procs=${ISC_CULLIDE_SPEED9_PROCS:-3}; reps=${ISC_CULLIDE_SPEED9_REPS:-2}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then
  procs=1; reps=1; size=8; calls=8; poses=20; export ISC_BENCH_BROADPHASE_STEPS=2
fi
parts=${ISC_CULLIDE_SPEED9_PARTS:-broadphase detector tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
{ machine_info; date -u; } > "$out/gpu.txt"
cat "$out/gpu.txt"
summary() { sed -n '/# isc_bench_broadphase summary/,$p' "$1"; }

if has broadphase; then
  rows=${ISC_CULLIDE_SPEED9_ROWS:-Dbvt|CullideClusters|CullideClustersBefore}
  for p in $(seq 1 "$procs"); do
    echo "=== broadphase process $p (100 bodies, the cluster level alone, $reps repetitions)"
    ISC_BENCH_BROADPHASE_OBJECT_PASS=0 timeout 100 "$bin/isc_bench_broadphase" \
      --benchmark_filter="^BM_($rows)/100/" --benchmark_repetitions="$reps" \
      > "$out/broadphase-p$p.txt" 2>&1
    echo "rc=$?"; summary "$out/broadphase-p$p.txt"
  done
  if [ -z "${ISC_CULLIDE_SPEED9_NO_OBJECT_PASS:-}" ]; then
  echo "=== broadphase, the object pass (100 bodies)"
  timeout 60 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_(Dbvt|Cullide|CullideBefore)/100/" \
    > "$out/broadphase-object-pass.txt" 2>&1
  echo "rc=$?"; summary "$out/broadphase-object-pass.txt"
  fi
  echo "=== broadphase 1000 bodies (40 steps) and the validate rows"
  ISC_BENCH_BROADPHASE_OBJECT_PASS=0 ISC_BENCH_BROADPHASE_STEPS_1000=40 timeout 120 "$bin/isc_bench_broadphase" \
    --benchmark_filter="^BM_(${ISC_CULLIDE_SPEED9_ROWS_1000:-Dbvt|CullideClusters|CullideClustersBefore})/1000/|^BM_CullideClustersValidate/(${ISC_CULLIDE_SPEED9_VALIDATE:-100|1000})/" \
    > "$out/broadphase-1000.txt" 2>&1
  echo "rc=$?"; summary "$out/broadphase-1000.txt"
fi

if has replay; then
  # (Not run by default; not yet run on the lent GPU.) The same poses for every row: collision
  # detection alone, btDbvtBroadphase against the cluster level alone, overlap on and off.
  echo "=== broadphase replay (the poses of one dbvt pile, 100 and 1000 bodies, 3 repetitions)"
  ISC_BENCH_BROADPHASE_STEPS_1000=40 timeout 150 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_Replay" \
    --benchmark_repetitions=3 --benchmark_enable_random_interleaving=true > "$out/broadphase-replay.txt" 2>&1
  echo "rc=$?"; grep -E "_(mean|median)" "$out/broadphase-replay.txt"
fi

if has detector; then
  echo "=== detector: pile/$size and deforming/$size, cullide, cpu, peel"
  ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=$calls ISC_BENCH_CULLIDE_VARIANTS="" \
  ISC_BENCH_CULLIDE_ORDER="cullide,cpu,peel" ISC_BENCH_CULLIDE_PATTERNS="" \
    cullide_process "$out" 1 90 "^(pile|deforming)/$size/"
fi

if has tests; then
  {
    cullide_accuracy "$poses"
    TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide "$dev"/tests/isc_test_cullide_broadphase \
      "$dev"/tests/isc_test_pile_cullide
  } > "$out/accuracy-tests.txt"
  grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
fi
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
