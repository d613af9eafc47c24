#!/usr/bin/env bash
# Branch cullide-8's round (issue 9's detector-speed bar with a margin: cullide within 1.5x of
# peel on pile/100 and deforming/100, beside cpu): isc_bench_cullide with cpu and peel in the
# same process, three processes in turn (each its own GL context), the rows in a different
# order in each (ISC_BENCH_CULLIDE_ORDER), then accuracy and the cullide tests on the NVIDIA
# driver. Rows (env hooks read when the row's detector is made, CullideDetector.cpp):
#   cullide         the branch's defaults (the exact stage in one parallel region, speculation
#                   during the chain's wait, the wait inside the exact test's team)
#   cullide_old     every hook off: main's code path (3a54ffd)
#   cullide_nospec  ISC_CULLIDE_SPECULATE=0 (one parallel region, team wait, no speculation)
# Process 1 also runs pile_gap/100 (CullideBench.cpp: the rigid pile with the deforming rows'
# vertex update done on a copy between calls: the GPU idles as in a physics step; 80 calls);
# ISC_CULLIDE_SPEED8_PATTERNS= (empty) leaves it out.
# (Runs 1, 2 and 4 compared earlier forms and hooks since removed, each named in its results
# file, bench/results/h200-2026-11-27-cullide8-run1.txt, -run2.txt, -run4.txt: run 4's
# cullide_sgroup, ISC_CULLIDE_SERIAL_GROUP=1, the grouping on one thread of the team.)
# ISC_CULLIDE_SPEED8_VARIANTS / _ORDER1 replace them. Pile rows back to back (min 0.5 s);
# deforming rows 80 calls each with the bench's vertex update between calls.
# Usage on the GPU machine, from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN, relative to the root or absolute; default .devrun):
#   ISC_DEVRUN=.devrun-cullide-8 bash .devrun-cullide-8/cullide-speed-8.sh
# (sources packed.sh from the packed folder when it was copied there, else bench/gpu/packed.sh).
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (8 bunnies, 8 calls, 20 poses, one process).
# Writes under $OUT: gpu.txt, cullide-p1.txt (.json), cullide-p2.txt, cullide-p3.txt,
# accuracy-tests.txt.
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
out=${OUT:-/tmp/out}; mkdir -p "$out"
size=100; calls=80; poses=200; procs=3
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then size=8; calls=8; poses=20; procs=1; fi
{ machine_info; date -u; } > "$out/gpu.txt"
cat "$out/gpu.txt"
off="ISC_CULLIDE_FUSED=0,ISC_CULLIDE_SPECULATE=0,ISC_CULLIDE_TEAM_WAIT=0"
variants=${ISC_CULLIDE_SPEED8_VARIANTS:-"cullide_old:$off;cullide_nospec:ISC_CULLIDE_SPECULATE=0"}
order1=${ISC_CULLIDE_SPEED8_ORDER1:-"cullide,cullide_old,cpu,peel,cullide_nospec"}
rev() { echo "$1" | tr ',' '\n' | tac | paste -sd,; }            # process 2: reversed
rot() { echo "$1" | awk -F, '{for(i=3;i<=NF;i++)printf "%s,",$i; print $1","$2}'; }  # process 3: rotated by 2
for p in $(seq 1 $procs); do
  case $p in 1) order=$order1 ;; 2) order=$(rev "$order1") ;; *) order=$(rot "$order1") ;; esac
  patterns=""
  [ "$p" = 1 ] && patterns=${ISC_CULLIDE_SPEED8_PATTERNS-"pile_gap"}
  echo "=== process $p: $order ${patterns:+(and $patterns)}"
  ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=$calls ISC_BENCH_CULLIDE_VARIANTS="$variants" \
  ISC_BENCH_CULLIDE_ORDER="$order" ISC_BENCH_CULLIDE_PATTERNS="$patterns" \
    cullide_process "$out" "$p" 120 "^(pile|deforming|pile_gap)/$size/"
done
{
  cullide_accuracy "$poses"
  echo "=== ISC_CULLIDE_SPECULATE=0 ISC_CULLIDE_FUSED=0 isc accuracy --detector cullide --poses $poses"
  ISC_CULLIDE_SPECULATE=0 ISC_CULLIDE_FUSED=0 timeout 40 "$bin/isc" accuracy --detector cullide --poses $poses --quiet 2>&1
  run_tests "$dev"/tests/isc_test_cullide* "$dev"/tests/isc_test_pile_cullide
} > "$out/accuracy-tests.txt"
grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
