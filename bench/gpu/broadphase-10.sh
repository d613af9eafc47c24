#!/usr/bin/env bash
# Branch broadphase-10's round (issue 9's broadphase bar at 100 bodies: pairs <= 0.5x of
# btDbvtBroadphase alone AND a faster pile step, 0 lost), cpu in our dispatcher, isc_bench_broadphase,
# the cluster level alone (ISC_BENCH_BROADPHASE_OBJECT_PASS=0) in every row:
#   dbvt                          btDbvtBroadphase alone
#   cullide_clusters              the pruning inside the cpu detector's OpenMP team (inTeam, the
#                                 default since broadphase-10: the stepping thread sets up, issues and
#                                 reads back the pass while the team's other threads detect)
#   cullide_clusters_after_issue  cullide-9's overlap (main's code before: the detector after the
#                                 pass is issued; inTeam off)
# Parts (ISC_BP10_PARTS, default "broadphase replay large tests"):
#   broadphase  the pile at 100 bodies in $procs processes (default 3; google benchmark runs the rows
#               in registration order: Dbvt, CullideClusters, CullideClustersAfterIssue, each
#               --benchmark_repetitions=$reps (default 2) times in a row)
#   replay      collision detection alone on the recorded poses of one dbvt pile (BM_Replay* rows:
#               every row the same poses), 100 and 1000 bodies (40 steps), 3 repetitions interleaved
#               at random; 100 bodies in $replays processes (ISC_BP10_REPLAYS, default 2), 1000 in
#               the first (ISC_BP10_REPLAY_1000=0: not at all)
#   large       1000 bodies (40 steps) the same rows, then the validate rows at 100 and 1000
#               (every pruned pair tested exactly: lost_pairs)
#   tests       isc_test_cpu, isc_test_cullide_broadphase on the NVIDIA driver
# Every row steps back to back (the pruning's GPU pass each step, a few ms apart: the clock-ramp
# pattern of a pile step, docs/detectors/cullide.md "clock ramp").
# Usage on the GPU machine from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN):
#   ISC_DEVRUN=.devrun-broadphase-10 bash .devrun-broadphase-10/broadphase-10.sh
# Smoke test on llvmpipe: ISC_BP10_SMOKE=1 (2 steps, 1 process).
# Writes under $OUT: gpu.txt, broadphase-p<N>.txt, replay-p<N>.txt, broadphase-1000.txt, tests.txt.
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
out=${OUT:-/tmp/out}; mkdir -p "$out"
procs=${ISC_BP10_PROCS:-3}; reps=${ISC_BP10_REPS:-2}; replays=${ISC_BP10_REPLAYS:-2}
if [ "${ISC_BP10_SMOKE:-0}" = 1 ]; then
  procs=1; reps=1; replays=1; export ISC_BENCH_BROADPHASE_STEPS=2
fi
parts=${ISC_BP10_PARTS:-broadphase replay large tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
{ machine_info; date -u; } > "$out/gpu.txt"
cat "$out/gpu.txt"
summary() { sed -n '/# isc_bench_broadphase summary/,$p' "$1"; }
rows=${ISC_BP10_ROWS:-Dbvt|CullideClusters|CullideClustersAfterIssue}
export ISC_BENCH_BROADPHASE_OBJECT_PASS=0

if has broadphase; then
  for p in $(seq 1 "$procs"); do
    echo "=== broadphase process $p (100 bodies, the cluster level alone, $reps repetitions)"
    timeout 100 "$bin/isc_bench_broadphase" --benchmark_filter="^BM_($rows)/100/" \
      --benchmark_repetitions="$reps" > "$out/broadphase-p$p.txt" 2>&1
    echo "rc=$?"; summary "$out/broadphase-p$p.txt"
  done
fi

if has replay; then
  for p in $(seq 1 "$replays"); do
    sizes="100"; [ "$p" = 1 ] && [ "${ISC_BP10_REPLAY_1000:-1}" = 1 ] && sizes="100|1000"
    echo "=== replay process $p (the poses of one dbvt pile, $sizes bodies, 3 repetitions interleaved)"
    ISC_BENCH_BROADPHASE_STEPS_1000=40 timeout 120 "$bin/isc_bench_broadphase" \
      --benchmark_filter="^BM_Replay($rows)/($sizes)/" --benchmark_repetitions=3 \
      --benchmark_enable_random_interleaving=true > "$out/replay-p$p.txt" 2>&1
    echo "rc=$?"; grep -E "_(mean|median) " "$out/replay-p$p.txt" | sed -E 's/ +[0-9.]+ ms +[0-9.]+ ms +[0-9]+ / /'
  done
fi

if has large; then
  echo "=== 1000 bodies (40 steps) and the validate rows"
  ISC_BENCH_BROADPHASE_STEPS_1000=40 timeout 150 "$bin/isc_bench_broadphase" \
    --benchmark_filter="^BM_($rows)/1000/|^BM_CullideClustersValidate/(100|1000)/" \
    > "$out/broadphase-1000.txt" 2>&1
  echo "rc=$?"; summary "$out/broadphase-1000.txt"
fi

if has tests; then
  TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cpu "$dev"/tests/isc_test_cullide_broadphase > "$out/tests.txt"
  grep -E "^===|FAILED|PASSED|tests ran|^rc=" "$out/tests.txt"
fi
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
