#!/usr/bin/env bash
# Issue 8's deforming pile and the pile demo's `auto`, on the lent NVIDIA machine, from packed
# binaries (bench/gpu/pack.sh). Run from the repository root there, after the GL debs are
# unpacked (`for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig`):
#   bench/gpu/peel-deform.sh [packed-dir]      (default .devrun)
# Writes to $OUT (at most 8 files):
#   machine.txt   GPU, driver, cores, the cgroup's CPU quota, OpenMP threads, load
#   peel.json/.txt isc_bench_peel: pile/100 and deform/100 with cpu and peel (defaults) on the
#                 same poses, and peel with exactThreads = 4, 8, 12, 15 (threads/...); medians
#                 of PEEL_DEFORM_REPS (default 7) repetitions of 0.2 s each
#   demo.txt      `isc demo bunny-pile --headless --bodies 100 --steps 300`: auto (its lines,
#                 the summary), then cpu and peel with --deform when the binary has it (with the
#                 last step's dispatcher split: mirror, detect, contacts), and auto with --deform
# Env: PEEL_DEFORM_REPS, PEEL_DEFORM_QUICK=1 (tiny sizes, for a check on llvmpipe).
# About 70 s on the H100 (round c, 2026-11-25: bench/results/h100-2026-11-25-round-c-peel-deform*).
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
out=${OUT:-/tmp/peel-deform-out}
mkdir -p "$out"
reps=${PEEL_DEFORM_REPS:-7}
quick=${PEEL_DEFORM_QUICK:-0}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
  echo "nproc $(nproc)"
  echo "cgroup cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo n/a)"
  echo "OMP_NUM_THREADS ${OMP_NUM_THREADS:-unset} OMP_WAIT_POLICY ${OMP_WAIT_POLICY:-unset}"
  grep -m1 "model name" /proc/cpuinfo
  echo "loadavg $(cat /proc/loadavg)"
  "$bin/isc" info 2>&1 | head -5
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"

# 1. The detector calls, cpu beside peel on the same poses.
if [ "$quick" = 1 ]; then
  filter='^(deform/100/(cpu|peel)|threads/deform/100/peel_exact4)/'
  export ISC_PEEL_BENCH_MIN_TIME=0.01
  reps=1
else
  filter='^((pile/100|deform/100)/(cpu|peel)|threads/(pile|deform)/100/peel_exact[0-9]+)/'
  export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.2}
fi
timeout 240 "$bin/isc_bench_peel" --benchmark_filter="$filter" --benchmark_repetitions=$reps \
  --benchmark_report_aggregates_only=true --benchmark_out="$out/peel.json" --benchmark_out_format=json \
  > "$out/peel.txt" 2>&1
grep -E "median|^(deform|pile|threads)" "$out/peel.txt" | awk '{print $1, $2, $3}'

# 2. The pile demo: auto on the rigid pile, then the deforming pile.
bodies=$([ "$quick" = 1 ] && echo 6 || echo 100)
steps=$([ "$quick" = 1 ] && echo 20 || echo 300)
demo() {  # progress lines left out; with --detector-stats the last step's split kept
  echo "== isc demo bunny-pile --headless --bodies $bodies --steps $steps $*"
  timeout 150 "$bin/isc" demo bunny-pile --headless --bodies "$bodies" --steps "$steps" --out /tmp/peel-deform.png "$@" \
    > /tmp/peel-deform-demo.log 2>&1
  grep -v -E '^(step |  )' /tmp/peel-deform-demo.log
  grep -E '^  ' /tmp/peel-deform-demo.log | tail -2
}
{
  demo --detector auto
  if "$bin/isc" demo bunny-pile --help 2>&1 | grep -q -- '--deform'; then
    demo --detector cpu --deform --detector-stats
    demo --detector peel --deform --detector-stats
    demo --detector auto --deform
  else
    echo "this isc has no bunny-pile --deform"
  fi
} > "$out/demo.txt" 2>&1
grep -E "^==|auto ->|summary|^  dispatch" "$out/demo.txt"
