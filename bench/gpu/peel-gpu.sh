#!/usr/bin/env bash
# Issue 8's figures for `peel` beside `cpu` (same run, same poses, medians), on the lent NVIDIA
# machine, from packed binaries. Run from the repository root there, after the GL debs are
# unpacked (`for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig`; bench/gpu/pack.sh packs):
#   bench/gpu/peel-gpu.sh [packed-dir]      (default .devrun; .devrun-peel-gpu works as well)
# Writes to $OUT (at most 8 files):
#   machine.txt    GPU, driver, cores, the cgroup's CPU quota, OpenMP threads
#   peel.json/.txt isc_bench_peel: pile/100, pile/1000, scaling/16x_sub0..3, deform/100,
#                  rows cpu and peel (defaults), and peel_rays (collision rays on) on pile/100
#                  and deform/100; medians of 5 (0.2 s per repetition)
#   accuracy.txt   isc accuracy --detector peel with its defaults
#   pile-step.json/.txt isc_bench_pile at 100 bunnies: cpu and peel with the defaults
# Env: PEEL_GPU_REPS (default 5), PEEL_GPU_FILTER (isc_bench_peel filter), PEEL_GPU_QUICK=1 (tiny
# sizes, for a check on llvmpipe). About 160 s on the H100 (2026-11-25). The committed
# bench/results/h100-2026-11-25-peel-gpu*.{json,txt} are its outputs, renamed:
#   peel.json -> h100-<date>-peel-gpu.json, machine.txt -> h100-<date>-peel-gpu-machine.txt, ...
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
out=${OUT:-/tmp/peel-gpu-out}
mkdir -p "$out"
reps=${PEEL_GPU_REPS:-5}
quick=${PEEL_GPU_QUICK:-0}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  echo "nproc $(nproc)"
  echo "cgroup cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo n/a)"
  echo "OMP_NUM_THREADS ${OMP_NUM_THREADS:-unset}"
  grep -m1 "model name" /proc/cpuinfo
  "$bin/isc" info 2>&1 | head -5
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
if [ "$quick" = 1 ]; then
  filter=${PEEL_GPU_FILTER:-'^scaling/16x_sub0/(cpu|peel|peel_rays)/'}
  export ISC_PEEL_BENCH_MIN_TIME=0.01
else
  filter=${PEEL_GPU_FILTER:-'^((pile/100|deform/100)/(cpu|peel|peel_rays)|(pile/1000|scaling/16x_sub[0-3])/(cpu|peel))/'}
  export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.2}
fi
timeout 400 "$bin/isc_bench_peel" --benchmark_filter="$filter" --benchmark_repetitions=$reps \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/peel.json" --benchmark_out_format=json \
  > "$out/peel.txt" 2>&1
grep -E "median" "$out/peel.txt" | awk '{print $1, $2, $3}'
if [ "$quick" = 1 ]; then
  timeout 120 "$bin/isc" accuracy --detector peel --poses 4 --quiet > "$out/accuracy.txt" 2>&1
else
  timeout 150 "$bin/isc" accuracy --detector peel --quiet > "$out/accuracy.txt" 2>&1
fi
tail -3 "$out/accuracy.txt"
if [ -x "$bin/isc_bench_pile" ]; then
  steps=${ISC_BENCH_PILE_STEPS:-$([ "$quick" = 1 ] && echo 3 || echo 180)}
  bodies=$([ "$quick" = 1 ] && echo 10 || echo 100)
  ISC_BENCH_PILE_STEPS=$steps ISC_BENCH_PILE_PEEL_RESOLUTION=0 ISC_BENCH_PILE_PEEL_AXES=0 \
    timeout 200 "$bin/isc_bench_pile" --benchmark_filter="BM_Pile(Cpu|Peel)/$bodies/" \
    --benchmark_out="$out/pile-step.json" --benchmark_out_format=json > "$out/pile-step.txt" 2>&1
  grep -E "BM_Pile" "$out/pile-step.txt" | head
fi
