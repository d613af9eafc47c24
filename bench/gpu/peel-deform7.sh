#!/usr/bin/env bash
# Issue 8's deforming-pile bar, back to back (deform_b2b/100), 2026-11-27 night (branch
# peel-deform-7): the final code in several processes and the chain's variants (test hooks,
# read at detector creation) in processes of their own, alternated, on the lent NVIDIA
# machine from packed binaries (bench/gpu/pack.sh with ISC_PACK_TESTS=1). Run from the
# repository root there, after the GL debs are unpacked:
#   bench/gpu/peel-deform7.sh [packed-dir]      (default .devrun)
# PEEL7_ORDER: the processes in order, each one of
#   d   defaults: rows cpu, peel, and (same process, repetitions interleaved at random, so that
#       they see the same GPU clock) peel_mainchain (test hook ISC_PEEL_WALK_RECORDS=0: the walk
#       and the triangle pairs as before 2026-11-27 night, with ISC_PEEL_UPLOAD_FIRST=0: main's
#       chain), peel_uploadafter (ISC_PEEL_UPLOAD_FIRST=0: the vertex upload after the walk's
#       dispatch), peel_walk64 and peel_walk256 (ISC_PEEL_WALK_WIDTH; the default is 128); run 2
#       had peel_uploadfirst (ISC_PEEL_UPLOAD_FIRST=1, then not the default) instead, run 3
#       peel_walk128 (then not the default) instead of peel_walk64; peel_notimers (gpuTimers off)
#       from run 4
#   r0  ISC_PEEL_WALK_RECORDS=0 (the walk writes node pairs, the triangle pairs look the rest up)
#   u1  ISC_PEEL_UPLOAD_FIRST=1 (run 1: the vertex upload before the CPU's boxes, now the default)
#   a   OMP_WAIT_POLICY=active (diagnostic: the OpenMP threads spin between calls)
# (default "d d d"; run 1 of 2026-11-27 night used "d r0 d u1 r0 d a" with cpu and peel rows only). PEEL7_TESTS=1 (default): isc_test_peel, isc_test_peel_units,
# isc_test_detector_lifetime and isc accuracy --detector peel first.
# Writes to $OUT: machine.txt, clocks.csv (nvidia-smi every 20 ms, read only), marks.txt,
# peel.txt (every process's rows, in order, each headed by its name), tests.txt, accuracy.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh"  # dir, bin, the libraries, the bunny, EGL
setup_out /tmp/peel-deform7-out
[ "${PEEL7_TESTS:-1}" = 1 ] && peel_tests_and_accuracy "$out"
start_clocks "$out"
export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
reps=${PEEL7_REPS:-5}
n=0
for p in ${PEEL7_ORDER:-d d d}; do
  n=$((n + 1))
  envs=()
  case $p in
    d) ;;
    r0) envs=(ISC_PEEL_WALK_RECORDS=0) ;;
    u1) envs=(ISC_PEEL_UPLOAD_FIRST=1) ;;
    a) envs=(OMP_WAIT_POLICY=active) ;;
  esac
  echo "## process $n: $p ${envs[*]:-}" >> "$out/peel.txt"
  for e in "${envs[@]}"; do export "${e?}"; done
  peel_interleaved "$out" "${PEEL7_FILTER:-^(variants/)?deform_b2b/100/(cpu|peel|peel_mainchain|peel_uploadafter|peel_walk64|peel_walk256|peel_notimers)/}" "$reps" 60 "$n $p"
  for e in "${envs[@]}"; do unset "${e%%=*}"; done
done
stop_clocks
# Summary: per process, the median rows' time and the chain's counters.
python3 - "$out/peel.txt" <<'PY' | tee "$out/summary.txt"
import re, sys
proc = None
for line in open(sys.argv[1]):
    if line.startswith("## process"):
        proc = line.strip()[3:]
        print(proc)
    m = re.match(r"(?:variants/)?(deform_b2b/100/(\w+))/\S*_median\s+([\d.]+) ms", line)
    if m:
        c = dict(re.findall(r"(\w+)=([-\d.e+kmu]+)", line))
        keys = ["median_ms", "screen_pairs", "cpu_setup_ms", "cpu_refit_ms", "cpu_upload_ms", "gpu_cull_ms", "gpu_filter_ms",
                "gpu_wait_ms", "cpu_exact_ms", "exact_reused", "missed_pairs", "extra_pairs"]
        print("  %-17s %6s ms  " % (m.group(2), m.group(3)) + " ".join(f"{k}={c[k]}" for k in keys if k in c))
PY
