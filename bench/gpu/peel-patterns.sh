#!/usr/bin/env bash
# Issue 8's deforming-pile bar by call pattern (2026-11-27 evening, branch peel-deform-6), on
# the lent NVIDIA machine, from packed binaries (bench/gpu/pack.sh). Run from the repository
# root there, after the GL debs are unpacked:
#   bench/gpu/peel-patterns.sh [packed-dir]      (default .devrun)
# Writes to $OUT:
#   machine.txt  GPU, driver, clocks, cores, OpenMP settings, load
#   clocks.csv   nvidia-smi every 20 ms while the benches run (timestamp, SM and memory clock,
#                P-state, utilisation; read only, no setting changed)
#   marks.txt    when each bench part started and ended (to read clocks.csv by pattern)
#   peel.txt / peel.json  isc_bench_peel, cpu and peel on the same frames and poses, medians of
#                PEEL_PAT_REPS (default 5) repetitions of ISC_PEEL_BENCH_MIN_TIME (0.1) s, the
#                repetitions of a part's rows interleaved at random, one process per part:
#                b2b:    deform_b2b/100 (120 precomputed wobble frames, back to back; 7 repetitions)
#                gap5:   deform_gap5/100 (the same frames, 5 ms busy wait before each call)
#                wobble: deform/100 (BunnyWobble computed between calls, several ms on one core)
#                pile:   pile/100 (rigid, back to back)
#                big:    scaling/16x_sub3 (3.76M triangles; peel rows only, 3 repetitions)
#                each with peel (defaults: refit auto, the CPU's boxes on the deforming pile,
#                the GPU pass on the rigid scenes) and the other refit (variants/...)
#                PEEL_PAT_PARTS: the parts to run (default all five)
#   tests.txt    the peel and GpuScene tests on the NVIDIA driver (when packed, PEEL_PAT_TESTS=1)
#   accuracy.txt isc accuracy --detector peel (defaults, 200 poses; PEEL_PAT_TESTS=1)
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
out=${OUT:-/tmp/peel-patterns-out}
mkdir -p "$out"
reps=${PEEL_PAT_REPS:-5}
# Repetitions of the rows of a part in random order (Google Benchmark's interleaving): the
# GPU's clock drifts within a process (peel.md), so rows run one after the other would not
# compare. PEEL_PAT_INTERLEAVE=false: in registration order.
interleave=${PEEL_PAT_INTERLEAVE:-true}
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
machine_info > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
smi=""
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,utilization.gpu --format=csv -lms 20 > "$out/clocks.csv" 2>&1 &
  smi=$!
fi
: > "$out/peel.txt"
part() {  # name filter [repetitions] [timeout]
  echo "$1 start $(date +%H:%M:%S.%N)" >> "$out/marks.txt"
  timeout ${4:-120} "$bin/isc_bench_peel" --benchmark_filter="$2" --benchmark_repetitions=${3:-$reps} \
    --benchmark_enable_random_interleaving=$interleave \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/peel-$1.json" --benchmark_out_format=json \
    >> "$out/peel.txt" 2>&1
  local rc=$?
  echo "$1 end $(date +%H:%M:%S.%N) rc $rc" >> "$out/marks.txt"
}
parts=${PEEL_PAT_PARTS:-b2b gap5 wobble pile big}
for p in $parts; do
  case $p in
    b2b) part b2b '^(variants/)?deform_b2b/100/(cpu|peel|peel_gpurefit)/' 7 ;;
    gap5) part gap5 '^(variants/)?deform_gap5/100/(cpu|peel|peel_gpurefit)/' ;;
    wobble) part wobble '^(variants/)?deform/100/(cpu|peel|peel_gpurefit)/' ;;
    pile) part pile '^(variants/)?pile/100/(cpu|peel|peel_cpurefit)/' ;;
    big) part big '^(variants/)?scaling/16x_sub3/(peel|peel_cpurefit)/' 3 100 ;;
  esac
done
[ -n "$smi" ] && kill "$smi"
# One JSON for the tables: every part's benchmarks.
python3 - "$out" <<'PY' 2>/dev/null || true
import json, sys, glob, os
out = sys.argv[1]
merged = None
for part in ("b2b", "gap5", "wobble", "pile", "big"):
    p = os.path.join(out, f"peel-{part}.json")
    if not os.path.exists(p): continue
    try:
        d = json.load(open(p))
    except Exception:
        os.remove(p)  # cut off by its timeout: peel.txt has what it printed
        continue
    for b in d["benchmarks"]: b["pattern"] = part
    if merged is None: merged = d
    else: merged["benchmarks"] += d["benchmarks"]
    os.remove(p)
if merged: json.dump(merged, open(os.path.join(out, "peel.json"), "w"), indent=1)
PY
grep -E "_median " "$out/peel.txt" | awk '{print $1, $2, $3}'
if [ "${PEEL_PAT_TESTS:-0}" = 1 ]; then
  for t in isc_test_peel_units isc_test_peel isc_gl_tests isc_test_detector_lifetime; do
    [ -x "$dir/tests/$t" ] || continue
    echo "=== $t"
    timeout 150 "$dir/tests/$t" 2>&1 | grep -E "^\[  (PASSED|FAILED) |Failure|error" || true
  done > "$out/tests.txt" 2>&1
  cat "$out/tests.txt"
  timeout 90 "$bin/isc" accuracy --detector peel --poses 200 --quiet > "$out/accuracy.txt" 2>&1
  tail -3 "$out/accuracy.txt"
fi
