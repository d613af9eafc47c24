#!/usr/bin/env bash
# GPU round for issue 10 (cinder, papers/000): one run, the same poses for every detector,
# medians. Needs the packed binaries (bench/gpu/pack.sh build/release: .devrun/bin/isc and
# .devrun/bin/isc_bench_cinder). Output under $OUT (6 files):
#   cinder-pile.txt     one detect() call of the dense 100-bunny pile: cpu, peel, cinder
#                       (defaults, 1 axis, 64 px, no samples); medians of 15 calls
#   cinder-mipmap.txt   object pairs the paper's mip-map read-back loses per resolution (pile)
#   snow-<det>.txt      isc demo snow-bunny, 10,000 spheres, 40 steps, per detector cpu, peel,
#                       cinder (32 px): the summary's mean_step_ms / mean_collision_ms
#   accuracy.txt        isc accuracy --detector cinder, 1000 poses, on the NVIDIA driver
# Under 3 minutes on an H100 (each part has its own timeout). Tiny sizes for a dry run here:
#   PILE=6 CALLS=2 SNOW=20 STEPS=5 POSES=10 MIPMAP=6 OUT=/tmp/o bash bench/gpu/cinder.sh
set -uo pipefail
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$PWD/.devrun/lib} ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$PWD/.devrun/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
run() { local name=$1 limit=$2; shift 2; echo "=== $name"; timeout "$limit" "$@" > "$out/$name.txt" 2>&1; echo "rc=$?"; tail -12 "$out/$name.txt"; }
run cinder-pile 40 "$bin/isc_bench_cinder" pile "${PILE:-100}" "${CALLS:-15}"
run cinder-mipmap 20 "$bin/isc_bench_cinder" mipmap "${MIPMAP:-100}" "128,256,512,1024,2048"
# cinder at 32 px per tile for the spheres (0.08 m across: 2.5 mm pixels); progress lines give
# ms/step even when a run is cut by its timeout.
for d in cpu peel "cinder --set resolution=32"; do
  # shellcheck disable=SC2086  # "cinder --set ..." is the detector and its option
  run "snow-${d%% *}" 30 "$bin/isc" demo snow-bunny --headless --bodies "${SNOW:-10000}" --steps "${STEPS:-40}" --detector $d --out ''
done
run accuracy 15 "$bin/isc" accuracy --detector cinder --poses "${POSES:-1000}" --quiet
