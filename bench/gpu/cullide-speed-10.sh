#!/usr/bin/env bash
# Branch cullide-10's round (issue 9's detector bar: `cullide`'s detect() within 1.5x of `peel`'s
# on pile/100 and deforming/100, medians, in every process). isc_bench_cullide in
# $ISC_CULLIDE_SPEED10_PROCS processes (default 3), each with the rows
#   cullide      the code as committed (defaults)
#   cullide_old  main's path in the same process: ISC_CULLIDE_FUSED_SETUP=0 (the deformed boxes
#                and the vertex conversion in two parallel regions, the copy with the chain's
#                first passes) and ISC_CULLIDE_PAIR_SPLIT=1 (the pair pass: one thread per
#                (pair, cluster of A) walking all of B's clusters) and, from run 4,
#                ISC_CULLIDE_WIDE_FILTER=0 (the filter's 64-invocation workgroups); the small CPU trims of the
#                commit (contact boxes once, the item box indices kept) have no hook
#   cullide_nofuse, cullide_nosplit, cullide_narrow  one hook each
#   cpu, peel    in the same process (the bar is relative to peel's)
# in a different order in each process; pile rows back to back (min 0.5 s), deforming rows 80
# calls each with the bench's vertex update between calls (the GPU idles meanwhile: its clock).
# Then `isc accuracy --detector cullide` (200 poses: defaults, clusterAxes=3, axes=1, the hooks
# off) and the cullide test executables on the NVIDIA driver (packed RelWithDebInfo tests,
# asserts on, when present).
# Usage on the GPU machine from the repository root (binaries packed by bench/gpu/pack.sh into
# ISC_DEVRUN, default .devrun):
#   ISC_DEVRUN=.devrun-cullide-10 bash .devrun-cullide-10/cullide-speed-10.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (1 process, pile/8 and deforming/8, 20 poses).
# ISC_CULLIDE_SPEED10_PARTS (default "detector tests") picks the parts.
# Writes under $OUT: machine.txt, clocks.csv, cullide-p<N>.txt (.json), accuracy-tests.txt.
# (Run 1, bench/results/h100-2026-11-28-cullide10-run1.txt, ran commit 17a06e3 with the hook
# ISC_CULLIDE_PAIR_CUT, since removed: rows cullide_nocut instead of cullide_nosplit, and
# cullide_old with ISC_CULLIDE_PAIR_CUT=0 instead of ISC_CULLIDE_PAIR_SPLIT=1. Runs 2 and 3 ran
# f13772f, run 3 with ISC_CULLIDE_SPEED10_BASIC=1 ISC_CULLIDE_SPEED10_PROCS=4, detector only; run 4
# ffa7139 with ISC_CULLIDE_SPEED10_BASIC=2.)
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
setup_out /tmp/cullide-speed-10-out
cat "$out/machine.txt"
procs=${ISC_CULLIDE_SPEED10_PROCS:-3}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then procs=1; size=8; calls=8; poses=20; fi
parts=${ISC_CULLIDE_SPEED10_PARTS:-detector tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
orders=("cullide,cullide_old,cpu,peel,cullide_nofuse,cullide_nosplit" "peel,cullide_nosplit,cpu,cullide_old,cullide_nofuse,cullide"
        "cullide_old,cullide_nofuse,peel,cullide,cullide_nosplit,cpu" "cpu,cullide,peel,cullide_old,cullide_nosplit,cullide_nofuse")
# ISC_CULLIDE_SPEED10_BASIC=1: only cullide, cullide_old, cpu and peel (run 3); =2: those and
# cullide_narrow (run 4).
if [ "${ISC_CULLIDE_SPEED10_BASIC:-0}" = 1 ]; then
  orders=("cullide,cullide_old,cpu,peel" "peel,cpu,cullide_old,cullide" "cullide_old,peel,cullide,cpu" "cpu,cullide,peel,cullide_old")
elif [ "${ISC_CULLIDE_SPEED10_BASIC:-0}" = 2 ]; then
  orders=("cullide,cullide_old,cpu,peel,cullide_narrow" "peel,cullide_narrow,cpu,cullide_old,cullide"
          "cullide_old,peel,cullide,cullide_narrow,cpu" "cpu,cullide,peel,cullide_old,cullide_narrow")
fi

if has detector; then
  cullide_processes "$out" "$procs" "$size" "$calls" \
    "cullide_old:ISC_CULLIDE_FUSED_SETUP=0,ISC_CULLIDE_PAIR_SPLIT=1,ISC_CULLIDE_WIDE_FILTER=0;cullide_nofuse:ISC_CULLIDE_FUSED_SETUP=0;cullide_nosplit:ISC_CULLIDE_PAIR_SPLIT=1;cullide_narrow:ISC_CULLIDE_WIDE_FILTER=0"
fi

if has tests; then
  {
    cullide_accuracy "$poses"
    echo "=== isc accuracy --detector cullide --poses $poses, ISC_CULLIDE_FUSED_SETUP=0 ISC_CULLIDE_PAIR_SPLIT=1 ISC_CULLIDE_WIDE_FILTER=0"
    ISC_CULLIDE_FUSED_SETUP=0 ISC_CULLIDE_PAIR_SPLIT=1 ISC_CULLIDE_WIDE_FILTER=0 timeout 40 "$bin/isc" accuracy --detector cullide \
      --poses "$poses" --quiet 2>&1
    TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide "$dev"/tests/isc_test_cullide_broadphase \
      "$dev"/tests/isc_test_pile_cullide
  } > "$out/accuracy-tests.txt"
  grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
fi
echo "elapsed ${SECONDS}s" | tee -a "$out/machine.txt"
