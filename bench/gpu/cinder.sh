#!/usr/bin/env bash
# GPU round for issue 10 (cinder, papers/000): one run, the same poses for every detector,
# medians. Needs the packed binaries (bench/gpu/pack.sh build/release: .devrun/bin/isc and
# .devrun/bin/isc_bench_cinder). Output under $OUT (6 files):
#   cinder-pile.txt     one detect() call of the dense 100-bunny pile: cpu, peel, cinder
#                       (defaults, 1 axis, 64 px, no samples); medians of 15 calls
#   cinder-mipmap.txt   object pairs the paper's mip-map read-back loses per resolution (pile)
#   snow-<det>.txt      isc demo snow-bunny, 10,000 spheres, 30 steps, per detector cpu, peel,
#                       cinder (32 px); its last line: "snow: ..." the mean step and collision
#                       times of the steps after FROM (12: the spheres have reached the bunny),
#                       from the progress lines' running means (they come every STEPS/10 steps)
#   accuracy.txt        isc accuracy --detector cinder on the NVIDIA driver: defaults (200
#                       poses), then 1000 poses
# About 3 to 4 minutes on an H100 (each part has its own timeout; cpu and peel step 10,000
# spheres at about 1.5 s). Tiny sizes for a dry run here:
#   PILE=6 CALLS=2 SNOW=20 STEPS=10 FROM=4 POSES=10 MIPMAP=6 OUT=/tmp/o bash bench/gpu/cinder.sh
set -uo pipefail
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$PWD/.devrun/lib} ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$PWD/.devrun/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
run() { local name=$1 limit=$2; shift 2; echo "=== $name"; timeout "$limit" "$@" > "$out/$name.txt" 2>&1; echo "rc=$?"; tail -12 "$out/$name.txt"; }
run cinder-pile 40 "$bin/isc_bench_cinder" pile "${PILE:-100}" "${CALLS:-15}"
run cinder-mipmap 20 "$bin/isc_bench_cinder" mipmap "${MIPMAP:-100}" "128,256,512,1024,2048"
# cinder at 32 px per tile for the spheres (0.08 m across: 2.5 mm pixels). The progress lines
# ("step N/M  X ms/step  collision Y ms", running means over steps 1..N) give the mean over the
# steps after FROM: (N * X_N - FROM * X_FROM) / (N - FROM), N the last line (a run cut by its
# timeout still gives one).
steps=${STEPS:-30} from=${FROM:-12}
for d in cpu peel "cinder --set resolution=32"; do
  name=snow-${d%% *}
  # shellcheck disable=SC2086  # "cinder --set ..." is the detector and its option
  run "$name" 75 "$bin/isc" demo snow-bunny --headless --bodies "${SNOW:-10000}" --steps "$steps" --detector $d --out ''
  awk -v from="$from" -v det="${d%% *}" -v bodies="${SNOW:-10000}" '
    /^step / { split($2, nm, "/"); n = nm[1] + 0; ms[n] = $3; col[n] = $6; if (n > last) last = n }
    END {
      if (!(from in ms) || last <= from) { printf "snow: detector=%s no progress line at step %d and after\n", det, from; exit }
      printf "snow: detector=%s bodies=%d steps=%d..%d step_ms=%.1f collision_ms=%.1f\n", det, bodies, from + 1, last,
             (last * ms[last] - from * ms[from]) / (last - from), (last * col[last] - from * col[from]) / (last - from)
    }' "$out/$name.txt" | tee -a "$out/$name.txt"
done
{ echo "# isc accuracy --detector cinder (defaults)"; timeout 30 "$bin/isc" accuracy --detector cinder --quiet 2>&1; } > "$out/accuracy.txt"
run accuracy-1000 30 "$bin/isc" accuracy --detector cinder --poses "${POSES:-1000}" --quiet
cat "$out/accuracy-1000.txt" >> "$out/accuracy.txt" && rm "$out/accuracy-1000.txt"
tail -3 "$out/accuracy.txt"
