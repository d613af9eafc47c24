#!/usr/bin/env bash
# GPU round for issue 10's open bars (cinder: the cull, the contact samples), one device call,
# every part with its own time limit, in order of need. Binaries and libraries from $DEVRUN
# (default .devrun-cinder-speed: bin/ isc isc_bench_cinder isc_bench_reliability, tests/
# isc_test_cinder isc_test_cinder_pile, lib/, data/bunny.obj; packed like bench/gpu/pack.sh).
# Outputs under $OUT (7 files):
#   tests.txt      isc_test_cinder and isc_test_cinder_pile on the NVIDIA driver (the resolve's
#                  linked walk, the cull, the sample tests)
#   accuracy.txt   isc accuracy --detector cinder, defaults (200 poses, seed 1)
#   pile.txt       isc_bench_cinder pile 100 15: one detect() call of the dense 100-bunny pile,
#                  cpu, peel, cinder (defaults, axes=1, resolution=64, samples=false, cull=false),
#                  medians of 15 calls; a "stats:" line per cinder row (its counters)
#   physics.txt    the 100-bunny pile (seed 1) in a Bullet world, 8 s: cpu, then cinder
#                  (isc_bench_reliability physics: settle time, penetration, contacts)
#   snow-cpu.txt, snow-cinder.txt   isc demo snow-bunny, 10,000 spheres, STEPS steps; the last
#                  line: the mean step and collision time over the steps after FROM
# Tiny sizes for a dry run on llvmpipe:
#   PILE=6 CALLS=2 POSES=10 BODIES=4 SECONDS_SIM=1 SNOW=20 STEPS=6 FROM=3 OUT=/tmp/o bash bench/gpu/cinder-speed.sh
set -uo pipefail
dev=${DEVRUN:-$PWD/.devrun-cinder-speed}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dev/lib ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$dev/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=$dev/bin; mkdir -p "$out"
t0=$SECONDS
stamp() { echo "# $1 at +$((SECONDS - t0)) s"; }
{ stamp tests; nvidia-smi -L 2>/dev/null
  for t in isc_test_cinder isc_test_cinder_pile; do
    timeout "${TEST_LIMIT:-60}" "$dev/tests/$t" 2>&1 | grep -E '^\[ +(OK|FAILED|PASSED) |^\[ cinder|^\[(cpu|cinder)|^\[=====|Failure|error' ; echo "$t rc=${PIPESTATUS[0]}"
  done; } > "$out/tests.txt" 2>&1
{ stamp accuracy; timeout 40 "$bin/isc" accuracy --detector cinder --poses "${POSES:-200}" --quiet 2>&1; echo "rc=$?"; } > "$out/accuracy.txt"
{ stamp pile; timeout 60 "$bin/isc_bench_cinder" pile "${PILE:-100}" "${CALLS:-15}" 2>&1; echo "rc=$?"; } > "$out/pile.txt"
{ stamp physics
  for d in cpu cinder; do
    timeout "${PHYSICS_LIMIT:-100}" "$bin/isc_bench_reliability" physics --bodies "${BODIES:-100}" --seed 1 \
      --seconds "${SECONDS_SIM:-8}" --penetration-every 2 --wall-limit "${PHYSICS_WALL:-85}" --detectors "$d" 2>&1
    echo "# $d rc=$? at +$((SECONDS - t0)) s"
  done; } > "$out/physics.txt"
# Snow: cinder at 32 px per tile (the spheres are 0.08 m across); the progress lines' running
# means give the mean over the steps after FROM (as bench/gpu/cinder.sh).
steps=${STEPS:-16} from=${FROM:-12}
for d in cpu "cinder --set resolution=32"; do
  name=snow-${d%% *}
  # shellcheck disable=SC2086  # "cinder --set ..." is the detector and its option
  { stamp "$name"; timeout "${SNOW_LIMIT:-45}" "$bin/isc" demo snow-bunny --headless --bodies "${SNOW:-10000}" --steps "$steps" \
      --detector $d --detector-stats --out '' 2>&1; echo "rc=$?"; } > "$out/$name.txt"
  awk -v from="$from" -v det="${d%% *}" -v bodies="${SNOW:-10000}" '
    /^step / { split($2, nm, "/"); n = nm[1] + 0; ms[n] = $3; col[n] = $6; if (n > last) last = n }
    END {
      if (!(from in ms) || last <= from) { printf "snow: detector=%s no progress line at step %d and after\n", det, from; exit }
      printf "snow: detector=%s bodies=%d steps=%d..%d step_ms=%.1f collision_ms=%.1f\n", det, bodies, from + 1, last,
             (last * ms[last] - from * ms[from]) / (last - from), (last * col[last] - from * col[from]) / (last - from)
    }' "$out/$name.txt" | tee -a "$out/$name.txt"
done
stamp done >> "$out/physics.txt"
tail -n 3 "$out"/*.txt
