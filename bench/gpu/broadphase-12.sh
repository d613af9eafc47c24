#!/usr/bin/env bash
# The lead's rounds of 2026-11-29 (twelfth session): issue 9's broadphase bar at 100 bodies (a pile
# step faster with CullideBroadphase than with btDbvtBroadphase alone, pairs <= 0.5x, 0 lost). What
# do the pairs the pass prunes cost the narrowphase, and is the step faster? isc_bench_broadphase,
# the cluster level alone (ISC_BENCH_BROADPHASE_OBJECT_PASS=0) in every cullide row. Parts
# (BP12_PARTS, default "tests replay gimpact"):
#   tests    peel's and cullide's test executables and isc_gl_tests on the driver, `isc accuracy` of
#            peel and cullide (200 poses): packed.sh final_tests_and_accuracy;
#   replay   cpu in our dispatcher, BP12_PROCS processes (default 4), replay rows (the recorded poses
#            of one dbvt pile, 180 steps, the same for every row; counter dispatch_ms:
#            dispatchAllCollisionPairs alone)
#              Dbvt                   btDbvtBroadphase alone: 818 pairs a step to the dispatcher
#              CullideClusters        the cluster level alone, in the cpu detector's team
#              CullideClustersBefore  the same pruning finished before the dispatch: dispatch_ms is
#                                     then the narrowphase on the ~180 kept pairs alone
#            five repetitions each, interleaved at random;
#   gimpact  stock Bullet (btCollisionDispatcher, btGImpactMeshShape; ISC_BENCH_BROADPHASE_DETECTOR=
#            bullet-gimpact), one process, replay rows Dbvt and CullideClusters (with a foreign
#            dispatcher the pruning runs in the broadphase: dispatch_ms is GImpact alone),
#            BP12_GIMPACT_REPS repetitions (default 1) interleaved, BP12_GIMPACT_STEPS steps (180);
#   pile     the whole step: the pile dropped and stepped 180 steps (each row's pile its own: the
#            cache's order changes Bullet's solver order), rows Dbvt and CullideClusters, five
#            repetitions interleaved at random, BP12_PILE_PROCS processes (default 6);
#   large    1000 bodies, rows Dbvt and CullideClusters, BP12_LARGE_REPS repetitions (default 2)
#            interleaved, in one process per step count of BP12_LARGE_STEPS (default "60": the
#            bench's default at 1000 bodies; broadphase-10 ran 40), into large-<steps>.txt;
#   replaystep  the whole step from each recorded state (transforms and velocities; rows
#            BM_ReplayStep*: every row steps from the same states) at 100 bodies, Dbvt and
#            CullideClusters, five repetitions interleaved, BP12_STEP_PROCS processes (default 6);
#            then at 1000 bodies (60 steps), three repetitions;
#   replaystep1000  the same at 1000 bodies for each step count of BP12_STEP1000_STEPS (default
#            "60"), BP12_STEP1000_PROCS processes each (default 3), three repetitions interleaved;
#   trace    the whole-step replay rows at 1000 (60 steps) and 100 bodies (180 steps), one process
#            each, BP12_TRACE_REPS repetitions (default 3), one line a step on stderr
#            (ISC_BENCH_BROADPHASE_TRACE=1) into trace-<bodies>.txt;
#   replay1000  the replay rows Dbvt and CullideClusters at 1000 bodies (60 steps), three
#            repetitions interleaved;
#   validate CullideClustersValidate at 100 and 1000 bodies (every pruned pair tested exactly:
#            lost_pairs must be 0).
# Ran with the default parts (h200-2026-11-29-twelfth-session-broadphase-replay.txt: the replay then
# set world transforms alone, see BroadphaseBench.cpp's ReplayBody), with BP12_PARTS="pile large
# validate gimpact" BP12_GIMPACT_REPS=2 BP12_GIMPACT_STEPS=120 (-broadphase-step.txt; large.txt
# there is large-60.txt's), and with the replay fixed, BP12_PARTS="replay large replay1000"
# BP12_LARGE_STEPS="40 60" BP12_LARGE_REPS=3 (-broadphase-replay-2.txt), then BP12_PARTS="replaystep"
# (-broadphase-replaystep.txt), then BP12_PARTS="replaystep1000" BP12_STEP1000_STEPS="60 40" with
# BP12_STEP1000_PROCS=2 (-broadphase-replaystep-1000.txt), then BP12_PARTS="trace" (-broadphase-trace.txt);
# with the replays warmed first (ISC_BENCH_BROADPHASE_WARM, the default since), BP12_PARTS="replaystep trace"
# BP12_STEP_PROCS=4 BP12_TRACE_REPS=2 (-broadphase-warm.txt). The runs before the warm-up: their
# averages hold the cpu detector's first posing of every object it met (BroadphaseBench.cpp).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1. Writes $OUT/broadphase-12.tgz: machine.txt, tests*.txt, accuracy*.txt,
# replay-cpu-p<N>.txt, replay-gimpact.txt, pile-p<N>.txt, large.txt, validate.txt, summary.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/broadphase-12-out
cat "$out/machine.txt"
parts=${BP12_PARTS:-tests replay gimpact}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
has tests && final_tests_and_accuracy "$out"
export ISC_BENCH_BROADPHASE_STEPS=${BP12_STEPS:-180} ISC_BENCH_BROADPHASE_STEPS_1000=${BP12_STEPS_1000:-60} ISC_BENCH_BROADPHASE_OBJECT_PASS=0
interleaved=(--benchmark_enable_random_interleaving=true)
if has replay; then
  for ((p = 1; p <= ${BP12_PROCS:-4}; p++)); do
    echo "=== replay, cpu, process $p"
    timeout 150 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_Replay(Dbvt|CullideClusters|CullideClustersBefore)/100/" \
      --benchmark_repetitions=5 "${interleaved[@]}" > "$out/replay-cpu-p$p.txt" 2>&1
    echo "rc=$?"
  done
fi
if has pile; then
  for ((p = 1; p <= ${BP12_PILE_PROCS:-6}; p++)); do
    echo "=== pile, cpu, process $p"
    timeout 150 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_(Dbvt|CullideClusters)/100/" \
      --benchmark_repetitions=5 "${interleaved[@]}" > "$out/pile-p$p.txt" 2>&1
    echo "rc=$?"
  done
fi
if has large; then
  for steps in ${BP12_LARGE_STEPS:-60}; do
    echo "=== 1000 bodies, cpu, $steps steps"
    ISC_BENCH_BROADPHASE_STEPS_1000=$steps timeout 200 "$bin/isc_bench_broadphase" \
      --benchmark_filter="^BM_(Dbvt|CullideClusters)/1000/" --benchmark_repetitions="${BP12_LARGE_REPS:-2}" \
      "${interleaved[@]}" > "$out/large-$steps.txt" 2>&1
    echo "rc=$?"
  done
fi
if has replaystep; then
  for ((p = 1; p <= ${BP12_STEP_PROCS:-6}; p++)); do
    echo "=== whole steps from the recorded states, cpu, process $p"
    timeout 150 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_ReplayStep(Dbvt|CullideClusters)/100/" \
      --benchmark_repetitions=5 "${interleaved[@]}" > "$out/replaystep-p$p.txt" 2>&1
    echo "rc=$?"
  done
  echo "=== whole steps from the recorded states, cpu, 1000 bodies"
  timeout 200 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_ReplayStep(Dbvt|CullideClusters)/1000/" \
    --benchmark_repetitions=3 "${interleaved[@]}" > "$out/replaystep-1000.txt" 2>&1
  echo "rc=$?"
fi
if has replaystep1000; then
  for steps in ${BP12_STEP1000_STEPS:-60}; do
    for ((p = 1; p <= ${BP12_STEP1000_PROCS:-3}; p++)); do
      echo "=== whole steps from the recorded states, cpu, 1000 bodies, $steps steps, process $p"
      ISC_BENCH_BROADPHASE_STEPS_1000=$steps timeout 200 "$bin/isc_bench_broadphase" \
        --benchmark_filter="^BM_ReplayStep(Dbvt|CullideClusters)/1000/" --benchmark_repetitions=3 "${interleaved[@]}" \
        > "$out/replaystep-1000-$steps-p$p.txt" 2>&1
      echo "rc=$?"
    done
  done
fi
if has trace; then
  for size in 1000 100; do
    echo "=== whole steps from the recorded states, traced step by step, $size bodies"
    ISC_BENCH_BROADPHASE_TRACE=1 timeout 200 "$bin/isc_bench_broadphase" \
      --benchmark_filter="^BM_ReplayStep(Dbvt|CullideClusters)/$size/" --benchmark_repetitions="${BP12_TRACE_REPS:-3}" \
      "${interleaved[@]}" > "$out/trace-$size.txt" 2>&1
    echo "rc=$?"
  done
fi
if has replay1000; then
  echo "=== replay, cpu, 1000 bodies"
  timeout 200 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_Replay(Dbvt|CullideClusters)/1000/" \
    --benchmark_repetitions=3 "${interleaved[@]}" > "$out/replay-cpu-1000.txt" 2>&1
  echo "rc=$?"
fi
if has validate; then
  echo "=== validate, 100 and 1000 bodies"
  timeout 200 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_CullideClustersValidate/(100|1000)/" > "$out/validate.txt" 2>&1
  echo "rc=$?"
fi
if has gimpact; then
  echo "=== replay, bullet-gimpact"
  ISC_BENCH_BROADPHASE_STEPS=${BP12_GIMPACT_STEPS:-180} ISC_BENCH_BROADPHASE_DETECTOR=bullet-gimpact timeout 400 \
    "$bin/isc_bench_broadphase" --benchmark_filter="^BM_Replay(Dbvt|CullideClusters)/100/" \
    --benchmark_repetitions="${BP12_GIMPACT_REPS:-1}" "${interleaved[@]}" > "$out/replay-gimpact.txt" 2>&1
  echo "rc=$?"
fi
python3 "$(dirname "${BASH_SOURCE[0]}")/replay_summary.py" $(ls "$out"/{replay,pile,large,validate,trace}*.txt 2>/dev/null) | tee "$out/summary.txt"
[ -n "$final" ] && tar -czf "$final/broadphase-12.tgz" -C "$out" .
