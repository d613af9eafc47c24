#!/usr/bin/env bash
# GPU round for issue 14 (reliability): the 10,000-step soak of the 100-bunny pile (bodies
# taken out and put back, the detector switched every 1,000 steps among every registered
# detector) and the physics table (every registered detector and stock Bullet GImpact: settling,
# penetration, contacts, manifold persistence, tunnelling at 5 and 20 m/s). Binaries from
# .devrun/bin as bench/gpu/pack.sh packs them (build/release with ISC_BUILD_BENCH on); outputs
# under $OUT: soak.txt, physics.txt (and their .err), info.txt. Under 8 minutes on one H100 (16
# cores): both parts run at once, each with a 440 s limit, and the soak's rows are flushed as
# they come, so a cut run keeps them.
#   ISC_SOAK_STEPS / ISC_SOAK_BODIES / ISC_PHYSICS_BODIES shrink it and ISC_BIN points at other
#   binaries (the llvmpipe check: ISC_BIN=<folder with isc and isc_bench_reliability>
#   ISC_SOAK_STEPS=50 ISC_SOAK_BODIES=5 ISC_PHYSICS_BODIES=3).
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib
[ -f .devrun/data/bunny.obj ] && export ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${ISC_BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
steps=${ISC_SOAK_STEPS:-10000}
bodies=${ISC_PHYSICS_BODIES:-100}
soakBodies=${ISC_SOAK_BODIES:-100}
every=$(( steps >= 10000 ? 1000 : (steps / 5 > 0 ? steps / 5 : 1) ))
{ date -u; nproc; nvidia-smi -L 2>/dev/null; "$bin/isc" info 2>&1 | head -8; } > "$out/info.txt"
run() { local name=$1 limit=$2; shift 2; timeout "$limit" "$@" > "$out/$name.txt" 2> "$out/$name.err"
        echo "=== $name rc=$?"; tail -15 "$out/$name.txt"; tail -3 "$out/$name.err"; }
# Side by side (the soak is mostly GPU and one core, the physics mostly the CPU cores): both
# within 7.5 minutes. Their step_ms columns are then not clean timings (speed: isc_bench_pile).
run soak 440 "$bin/isc_bench_reliability" soak --bodies "$soakBodies" --steps "$steps" --switch-every "$every" \
  --churn-every $(( every / 4 > 0 ? every / 4 : 1 )) --churn 10 &
run physics 440 "$bin/isc_bench_reliability" physics --bodies "$bodies" --seconds 6 &
wait
