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
#   piletrace  the pile rows at 100 bodies (180 steps), one process, BP12_TRACE_REPS repetitions,
#            one line a step on stderr into trace-pile-100.txt (each run makes its world and its
#            broadphase: the first steps hold their first use);
#   pileseeds  the pile rows, a different pile layout each repetition (ISC_BENCH_BROADPHASE_VARY_SEED=1,
#            both rows the same seeds): at 100 bodies BP12_SEED_PROCS processes (default 6) of five
#            repetitions, process p seeds b+5(p-1)..b+5p-1 (b: BP12_SEED_BASE, default 1), into
#            pileseeds-p<N>.txt; at 1000 bodies one process of BP12_SEED_1000_REPS repetitions (default
#            3; 0: none) from seed BP12_SEED_1000_BASE (default 1) into pileseeds-1000.txt; the
#            summary pairs the rows by seed;
#   deform   the deforming pile (every bunny's vertices wobbling each step, told to the dispatcher,
#            whose count CullideBroadphase reads): rows BM_DeformDbvt and BM_DeformCullideClusters at
#            100 bodies (180 steps), five repetitions interleaved, BP12_DEFORM_PROCS processes
#            (default 3) into deform-p<N>.txt; then BM_DeformCullideClustersValidate once
#            (deform-validate.txt: lost_pairs must be 0); with BP12_DEFORM_SEEDS=1 a different layout
#            each repetition (process p seeds 5(p-1)+1.., both rows the same seeds; paired by seed);
#            BP12_DEFORM_NOSHARE=1: one more process, seeds 1-5, the broadphase reading every changed
#            shape itself (ISC_CULLIDE_BROADPHASE_SHARE_READS=0) into deform-noshare.txt;
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
# Thirteenth session (cpu's shape copies, fc808ce): BP12_PARTS="replaystep trace" BP12_STEP_PROCS=4
# BP12_TRACE_REPS=2 (-thirteenth-session-broadphase-replaystep.txt); BP12_PARTS="pile large validate"
# BP12_PILE_PROCS=6 BP12_LARGE_STEPS="60 120" BP12_LARGE_REPS=3 (-broadphase-pile.txt);
# BP12_PARTS=piletrace BP12_TRACE_REPS=5, then BP12_PARTS=pile BP12_PILE_PROCS=3 BP12_STEPS=360
# (-broadphase-piletrace.txt); BP12_PARTS=pileseeds, then BP12_PARTS=pileseeds BP12_STEPS=360
# BP12_SEED_PROCS=3 BP12_SEED_1000_REPS=0, then BP12_PARTS=pileseeds BP12_SEED_BASE=31
# BP12_SEED_1000_BASE=4 (-broadphase-seeds.txt); BP12_PARTS="tests deform" (-broadphase-deform.txt).
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1. Writes $OUT/broadphase-12.tgz: machine.txt, tests*.txt, accuracy*.txt, one file
# per part and process (replay-cpu-p<N>.txt, pile-p<N>.txt, large-<steps>.txt, replaystep-p<N>.txt,
# replaystep-1000*.txt, trace-<bodies>.txt, replay-cpu-1000.txt, validate.txt, replay-gimpact.txt; a
# part run in one process has no -p<N>) and summary.txt (replay_summary.py).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
final=${OUT:-}
OUT=$(mktemp -d) setup_out /tmp/broadphase-12-out
cat "$out/machine.txt"
parts=${BP12_PARTS:-tests replay gimpact}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
has tests && final_tests_and_accuracy "$out"
export ISC_BENCH_BROADPHASE_STEPS=${BP12_STEPS:-180} ISC_BENCH_BROADPHASE_STEPS_1000=${BP12_STEPS_1000:-60} ISC_BENCH_BROADPHASE_OBJECT_PASS=0
# $1 processes of isc_bench_broadphase, rows matching $2, $3 repetitions interleaved at random, at
# most $4 seconds each, into $out/$5-p<N>.txt ($out/$5.txt for one process).
bench_procs() {
  local procs=$1 filter=$2 reps=$3 limit=$4 name=$5 p file
  for ((p = 1; p <= procs; p++)); do
    file=$out/$name-p$p.txt
    [ "$procs" = 1 ] && file=$out/$name.txt
    echo "=== $name, process $p of $procs"
    timeout "$limit" "$bin/isc_bench_broadphase" --benchmark_filter="$filter" --benchmark_repetitions="$reps" \
      --benchmark_enable_random_interleaving=true > "$file" 2>&1
    echo "rc=$?"
  done
}
has replay && bench_procs "${BP12_PROCS:-4}" "^BM_Replay(Dbvt|CullideClusters|CullideClustersBefore)/100/" 5 150 replay-cpu
has pile && bench_procs "${BP12_PILE_PROCS:-6}" "^BM_(Dbvt|CullideClusters)/100/" 5 150 pile
if has large; then
  for steps in ${BP12_LARGE_STEPS:-60}; do
    ISC_BENCH_BROADPHASE_STEPS_1000=$steps bench_procs 1 "^BM_(Dbvt|CullideClusters)/1000/" "${BP12_LARGE_REPS:-2}" 200 "large-$steps"
  done
fi
if has replaystep; then
  bench_procs "${BP12_STEP_PROCS:-6}" "^BM_ReplayStep(Dbvt|CullideClusters)/100/" 5 150 replaystep
  bench_procs 1 "^BM_ReplayStep(Dbvt|CullideClusters)/1000/" 3 200 replaystep-1000
fi
if has replaystep1000; then
  for steps in ${BP12_STEP1000_STEPS:-60}; do
    ISC_BENCH_BROADPHASE_STEPS_1000=$steps bench_procs "${BP12_STEP1000_PROCS:-3}" \
      "^BM_ReplayStep(Dbvt|CullideClusters)/1000/" 3 200 "replaystep-1000-$steps"
  done
fi
if has trace; then
  for size in 1000 100; do
    ISC_BENCH_BROADPHASE_TRACE=1 bench_procs 1 "^BM_ReplayStep(Dbvt|CullideClusters)/$size/" "${BP12_TRACE_REPS:-3}" 200 "trace-$size"
  done
fi
has piletrace && ISC_BENCH_BROADPHASE_TRACE=1 bench_procs 1 "^BM_(Dbvt|CullideClusters)/100/" "${BP12_TRACE_REPS:-3}" 200 trace-pile-100
if has pileseeds; then
  for ((p = 1; p <= ${BP12_SEED_PROCS:-6}; p++)); do
    ISC_BENCH_BROADPHASE_VARY_SEED=1 ISC_BENCH_BROADPHASE_SEED=$((5 * (p - 1) + ${BP12_SEED_BASE:-1})) \
      bench_procs 1 "^BM_(Dbvt|CullideClusters)/100/" 5 150 "pileseeds-p$p"
  done
  [ "${BP12_SEED_1000_REPS:-3}" != 0 ] &&
    ISC_BENCH_BROADPHASE_VARY_SEED=1 ISC_BENCH_BROADPHASE_SEED=${BP12_SEED_1000_BASE:-1} bench_procs 1 "^BM_(Dbvt|CullideClusters)/1000/" "${BP12_SEED_1000_REPS:-3}" 250 pileseeds-1000
fi
if has deform; then
  if [ "${BP12_DEFORM_SEEDS:-0}" = 1 ]; then
    for ((p = 1; p <= ${BP12_DEFORM_PROCS:-3}; p++)); do
      ISC_BENCH_BROADPHASE_VARY_SEED=1 ISC_BENCH_BROADPHASE_SEED=$((5 * (p - 1) + 1)) \
        bench_procs 1 "^BM_Deform(Dbvt|CullideClusters)/100/" 5 200 "deform-p$p"
    done
  else
    bench_procs "${BP12_DEFORM_PROCS:-3}" "^BM_Deform(Dbvt|CullideClusters)/100/" 5 200 deform
  fi
  [ "${BP12_DEFORM_NOSHARE:-0}" = 1 ] && ISC_CULLIDE_BROADPHASE_SHARE_READS=0 ISC_BENCH_BROADPHASE_VARY_SEED=1 \
    bench_procs 1 "^BM_Deform(Dbvt|CullideClusters)/100/" 5 200 deform-noshare
  bench_procs 1 "^BM_DeformCullideClustersValidate/100/" 1 200 deform-validate
fi
has replay1000 && bench_procs 1 "^BM_Replay(Dbvt|CullideClusters)/1000/" 3 200 replay-cpu-1000
has validate && bench_procs 1 "^BM_CullideClustersValidate/(100|1000)/" 1 200 validate
if has gimpact; then
  ISC_BENCH_BROADPHASE_STEPS=${BP12_GIMPACT_STEPS:-180} ISC_BENCH_BROADPHASE_DETECTOR=bullet-gimpact \
    bench_procs 1 "^BM_Replay(Dbvt|CullideClusters)/100/" "${BP12_GIMPACT_REPS:-1}" 400 replay-gimpact
fi
python3 "$(dirname "${BASH_SOURCE[0]}")/replay_summary.py" $(ls "$out"/{replay,pile,large,validate,trace,deform}*.txt 2>/dev/null) | tee "$out/summary.txt"
[ -n "$final" ] && tar -czf "$final/broadphase-12.tgz" -C "$out" .
