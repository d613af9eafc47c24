#!/usr/bin/env bash
# Branch cullide-12's round (issue 9's detector bar: `cullide`'s detect() within 1.5x of `peel`'s
# on pile/100 and deforming/100, medians, in every process). isc_bench_cullide in
# $ISC_CULLIDE_SPEED12_PROCS processes (default 3), each with the rows
#   cullide        the defaults (run 1: the filter as a list with the cut before posing; run 2:
#                  the workgroup per cluster pair with the cut before posing; run 3: the workgroup
#                  per cluster pair with each slot's corner indices in one load, the default now)
#   cullide_old    main's path: ISC_CULLIDE_FILTER_LIST=0 ISC_CULLIDE_FILTER_PRECUT=0
#                  ISC_CULLIDE_SLOT_CORNERS=0 (run 1: ISC_CULLIDE_FILTER_LIST=0 alone, run 2
#                  without the last: main's path then)
#   cpu, peel      in the same process (the bar is relative to peel's)
#   $ISC_CULLIDE_SPEED12_EXTRA  optional fifth row, "name:VAR=v,VAR=v" (appended to every order;
#                  run 1 cullide_nocut:ISC_CULLIDE_FILTER_PRECUT=0, run 2
#                  cullide_split:ISC_CULLIDE_FILTER_LIST=2, run 3 cullide_list:ISC_CULLIDE_FILTER_LIST=1)
# in a different order in each process; pile rows back to back (min 0.5 s), deforming rows 80
# calls each with the bench's vertex update between calls (the GPU idles meanwhile: its clock).
# Then `isc accuracy --detector cullide` (200 poses: defaults, clusterAxes=3, axes=1, the hooks
# off, and the filter's shapes 1 and 2) and the cullide test executables on the NVIDIA driver
# (packed tests, when present).
# The filter shapes (ISC_CULLIDE_FILTER_LIST=1, 2) and the cut before posing
# (ISC_CULLIDE_FILTER_PRECUT) were taken out after run 3 (slower): runs 1-3 need the binaries of
# branch commits d45d20e, c2d9d78 and 4ae3b20; with today's tree the hooks they set are ignored
# (cullide_old = ISC_CULLIDE_SLOT_CORNERS=0 is still main's path).
# Usage on the GPU machine from the repository root (binaries packed by bench/gpu/pack.sh into
# ISC_DEVRUN, default .devrun; this script copied beside them):
#   ISC_DEVRUN=.devrun-cullide-12 bash .devrun-cullide-12/cullide-speed-12.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (1 process, pile/8 and deforming/8, 20 poses).
# ISC_CULLIDE_SPEED12_PARTS (default "detector tests") picks the parts.
# ISC_CULLIDE_SPEED12_WARM_MS (run 4: 1500): each GL row's warm-up lasts at least that long
# (isc_bench_cullide's ISC_BENCH_CULLIDE_WARM_MS), past the GPU's clock ramp after the cpu row.
# Writes under $OUT: machine.txt, clocks.csv, cullide-p<N>.txt (.json), accuracy-tests.txt.
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
setup_out /tmp/cullide-speed-12-out
cat "$out/machine.txt"
procs=${ISC_CULLIDE_SPEED12_PROCS:-3}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then procs=1; size=8; calls=8; poses=20; fi
parts=${ISC_CULLIDE_SPEED12_PARTS:-detector tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
orders=("cullide,cullide_old,cpu,peel" "peel,cpu,cullide_old,cullide" "cullide_old,peel,cullide,cpu"
        "cpu,cullide,peel,cullide_old")
variants="cullide_old:ISC_CULLIDE_FILTER_LIST=0,ISC_CULLIDE_FILTER_PRECUT=0,ISC_CULLIDE_SLOT_CORNERS=0"
extra=${ISC_CULLIDE_SPEED12_EXTRA:-}
if [ -n "$extra" ]; then
  variants="$variants;$extra"
  for i in "${!orders[@]}"; do
    if ((i % 2)); then orders[$i]="${extra%%:*},${orders[$i]}"; else orders[$i]="${orders[$i]},${extra%%:*}"; fi
  done
fi

[ -n "${ISC_CULLIDE_SPEED12_WARM_MS:-}" ] && export ISC_BENCH_CULLIDE_WARM_MS=$ISC_CULLIDE_SPEED12_WARM_MS
if has detector; then
  cullide_processes "$out" "$procs" "$size" "$calls" "$variants"
fi

if has tests; then
  {
    cullide_accuracy "$poses"
    for hooks in "ISC_CULLIDE_FILTER_LIST=0 ISC_CULLIDE_FILTER_PRECUT=0 ISC_CULLIDE_SLOT_CORNERS=0" "ISC_CULLIDE_FILTER_LIST=1" \
                 "ISC_CULLIDE_FILTER_LIST=2"; do
      echo "=== isc accuracy --detector cullide --poses $poses, $hooks"
      # shellcheck disable=SC2086
      env $hooks timeout 40 "$bin/isc" accuracy --detector cullide --poses "$poses" --quiet 2>&1
    done
    TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide "$dev"/tests/isc_test_cullide_broadphase \
      "$dev"/tests/isc_test_pile_cullide
  } > "$out/accuracy-tests.txt"
  grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
fi
echo "elapsed ${SECONDS}s" | tee -a "$out/machine.txt"
