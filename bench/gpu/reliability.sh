#!/usr/bin/env bash
# GPU round for issue 14 (reliability): the 10,000-step soak of the 100-bunny pile (bodies
# taken out and put back, the detector switched every 1,000 steps among every registered
# detector) and the physics table (every registered detector and stock Bullet GImpact: settling,
# penetration, contacts, manifold persistence, tunnelling at 5 and 20 m/s). Binaries from
# .devrun/bin as bench/gpu/pack.sh packs them (build/release with ISC_BUILD_BENCH on); outputs
# under $OUT: soak.txt, physics.txt, info.txt. Under 8 minutes on one H100 (16 cores): each
# part has a time limit, and the soak's rows are flushed as they come, so a cut run keeps them.
#   ISC_SOAK_STEPS / ISC_PHYSICS_BODIES shrink it (llvmpipe check: ISC_SOAK_STEPS=200 ISC_PHYSICS_BODIES=5).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${ISC_BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
steps=${ISC_SOAK_STEPS:-10000}
bodies=${ISC_PHYSICS_BODIES:-100}
every=$(( steps >= 10000 ? 1000 : (steps / 5 > 0 ? steps / 5 : 1) ))
{ date -u; nproc; nvidia-smi -L 2>/dev/null; "$bin/isc" info 2>&1 | head -8; } > "$out/info.txt"
run() { local name=$1 limit=$2; shift 2; echo "=== $name"; timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
        echo "rc=$?"; tail -15 "$out/$name.txt"; tail -3 "$out/$name.err"; }
run soak 330 "$bin/isc_bench_reliability" soak --bodies 100 --steps "$steps" --switch-every "$every" \
  --churn-every $(( every / 4 > 0 ? every / 4 : 1 )) --churn 10
run physics 140 "$bin/isc_bench_reliability" physics --bodies "$bodies" --seconds 6
