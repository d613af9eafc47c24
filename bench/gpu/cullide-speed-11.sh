#!/usr/bin/env bash
# Branch cullide-11's round (issue 9's detector bar: `cullide`'s detect() within 1.5x of `peel`'s
# on pile/100 and deforming/100, medians, in every process). Its hooks were taken out of main at the
# merge (no reliable gain): it needs the binaries of branch commit 2ba3ad5. isc_bench_cullide in
# $ISC_CULLIDE_SPEED11_PROCS processes (default 3), each with the rows
#   cullide_posed    the posed path: ISC_CULLIDE_POSED_SPLAT=1 ISC_CULLIDE_POSED_FILTER=1 (the
#                    default in runs 1-2, where the row was `cullide`; off by default since)
#   cullide_old      main's path in the same process: ISC_CULLIDE_POSED_SPLAT=0 and
#                    ISC_CULLIDE_POSED_FILTER=0 (the cluster level's splat passes and the filter
#                    pose every triangle themselves, the filter once per cluster pair)
#   cullide_nosplat  ISC_CULLIDE_POSED_SPLAT=0 ISC_CULLIDE_POSED_FILTER=1 (a pass before the
#                    filter poses the wanted clusters' triangles once; the splats pose their own) (run 1)
#   cullide_pack2    the posed path and ISC_CULLIDE_FILTER_PACK=2: two cluster pairs per filter
#                    workgroup (run 2: ISC_CULLIDE_SPEED11_RUN=2 puts it in cullide_nosplat's place)
#   cpu, peel        in the same process (the bar is relative to peel's)
# in a different order in each process; pile rows back to back (min 0.5 s), deforming rows 80
# calls each with the bench's vertex update between calls (the GPU idles meanwhile: its clock).
# Then `isc accuracy --detector cullide` (200 poses: defaults, clusterAxes=3, axes=1, the hooks
# off) and the cullide test executables on the NVIDIA driver (packed tests, when present).
# Usage on the GPU machine from the repository root (binaries packed by bench/gpu/pack.sh into
# ISC_DEVRUN, default .devrun):
#   ISC_DEVRUN=.devrun-cullide-11 bash .devrun-cullide-11/cullide-speed-11.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (1 process, pile/8 and deforming/8, 20 poses).
# ISC_CULLIDE_SPEED11_PARTS (default "detector tests") picks the parts.
# Run 1 (h200-2026-11-28-cullide11-run1.txt) ran a26ad9f, run 2 (ISC_CULLIDE_SPEED11_RUN=2,
# h200-2026-11-28-cullide11-run2.txt) 922cbed with the NVIDIA fix; in both the posed paths were
# the default, so their row `cullide` is the posed path (cullide_posed now), and their last
# accuracy line ran the hooks off (=0, main's path, the default now).
# Writes under $OUT: machine.txt, clocks.csv, cullide-p<N>.txt (.json), accuracy-tests.txt.
set -uo pipefail
devrun=${ISC_DEVRUN:-.devrun}
if [ -f "$devrun/packed.sh" ]; then . "$devrun/packed.sh" "$devrun"; else . bench/gpu/packed.sh "$devrun"; fi
setup_out /tmp/cullide-speed-11-out
cat "$out/machine.txt"
procs=${ISC_CULLIDE_SPEED11_PROCS:-3}; size=100; calls=80; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then procs=1; size=8; calls=8; poses=20; fi
parts=${ISC_CULLIDE_SPEED11_PARTS:-detector tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }
orders=("cullide_posed,cullide_old,cpu,peel,cullide_nosplat" "peel,cullide_nosplat,cpu,cullide_old,cullide_posed"
        "cullide_old,peel,cullide_posed,cullide_nosplat,cpu" "cpu,cullide_posed,peel,cullide_old,cullide_nosplat")

if [ "${ISC_CULLIDE_SPEED11_RUN:-1}" = 2 ]; then
  for i in "${!orders[@]}"; do orders[$i]=${orders[$i]//cullide_nosplat/cullide_pack2}; done
fi

if has detector; then
  cullide_processes "$out" "$procs" "$size" "$calls" \
    "cullide_posed:ISC_CULLIDE_POSED_SPLAT=1,ISC_CULLIDE_POSED_FILTER=1;cullide_old:ISC_CULLIDE_POSED_SPLAT=0,ISC_CULLIDE_POSED_FILTER=0;cullide_nosplat:ISC_CULLIDE_POSED_SPLAT=0,ISC_CULLIDE_POSED_FILTER=1;cullide_pack2:ISC_CULLIDE_POSED_SPLAT=1,ISC_CULLIDE_POSED_FILTER=1,ISC_CULLIDE_FILTER_PACK=2"
fi

if has tests; then
  {
    cullide_accuracy "$poses"
    echo "=== isc accuracy --detector cullide --poses $poses, ISC_CULLIDE_POSED_SPLAT=1 ISC_CULLIDE_POSED_FILTER=1"
    ISC_CULLIDE_POSED_SPLAT=1 ISC_CULLIDE_POSED_FILTER=1 timeout 40 "$bin/isc" accuracy --detector cullide \
      --poses "$poses" --quiet 2>&1
    TEST_LIMIT=90 run_tests "$dev"/tests/isc_test_cullide "$dev"/tests/isc_test_cullide_broadphase \
      "$dev"/tests/isc_test_pile_cullide
  } > "$out/accuracy-tests.txt"
  grep -E "^===|accuracy:|FAILED|PASSED|tests ran|^rc=" "$out/accuracy-tests.txt"
fi
echo "elapsed ${SECONDS}s" | tee -a "$out/machine.txt"
