#!/usr/bin/env bash
# GPU round for issue 14 (reliability), in two parts, each one device call on its own:
#
#   bash bench/gpu/reliability.sh physics   # the physics table, under 5 minutes on one H100
#   bash bench/gpu/reliability.sh soak      # the 10,000-step soak, under 9 minutes
#   bash bench/gpu/reliability.sh           # both, one after the other (two device calls' worth)
#
# physics: the 100-bunny pile (seed 1, the same world settings for every detector) for every
#   registered detector and stock Bullet GImpact, each in its own process (a detector that cannot
#   start, crashes or hangs costs only its own row, and the table goes on): settling, penetration
#   from the poses (probed every ISC_PHYSICS_PROBE_EVERY steps), contacts, manifold persistence,
#   tunnelling at 5 and 20 m/s. A run stops early once the whole pile sleeps or a body falls
#   through the ground; each detector has a wall-clock limit (ISC_PHYSICS_WALL, seconds, then a
#   hard timeout 10 s later). Then, while the part's budget lasts, seeds 2-5 of the same pile for
#   cpu and GImpact (rows "seed N<TAB>detector ...": how much the settling time varies).
# soak: 100 bunnies, 10,000 steps of 1/60 s, 10 bodies taken out / put back every 250 steps, the
#   detector switched every 1,000 steps among every registered detector (one that cannot be made
#   is skipped; one that takes more than ISC_SOAK_WALL seconds of one period hands over early);
#   resident memory, GL buffer bytes, energy and the step's breakdown every 100 steps. Rows are
#   flushed as they come, so a cut run keeps them.
#
# Binaries from .devrun/bin as bench/gpu/pack.sh packs them (build/release with ISC_BUILD_BENCH
# on). Outputs under $OUT: info.txt, physics.txt, physics.err, soak.txt, soak.err. The parts run
# one after the other, never side by side (both use every core through OpenMP; side by side
# their step times were 5x too slow and the GPU was shared).
#
# Smaller runs (the llvmpipe check): ISC_BIN=<folder with isc_bench_reliability>
# ISC_PHYSICS_BODIES=3 ISC_PHYSICS_DETECTORS="cpu peel" ISC_PHYSICS_SEEDS=2 ISC_SOAK_STEPS=200
# ISC_SOAK_BODIES=5.
set -uo pipefail
parts=${1:-physics soak}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PWD/.devrun/lib
[ -f .devrun/data/bunny.obj ] && export ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${ISC_BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
rel=$bin/isc_bench_reliability
{ date -u; nproc; nvidia-smi -L 2>/dev/null; [ -x "$bin/isc" ] && "$bin/isc" info 2>&1 | head -8; } >> "$out/info.txt"

physics() {
    local bodies=${ISC_PHYSICS_BODIES:-100} wall=${ISC_PHYSICS_WALL:-28} every=${ISC_PHYSICS_PROBE_EVERY:-2}
    local detectors=${ISC_PHYSICS_DETECTORS:-$("$rel" list 2>/dev/null)}
    local first=1 t0=$SECONDS
    : > "$out/physics.err"
    for d in $detectors; do
        local t=$SECONDS
        timeout $((wall + 10)) "$rel" physics --bodies "$bodies" --seconds 6 --penetration-every "$every" \
            --wall-limit "$wall" --detectors "$d" > "$out/physics.$d.tmp" 2>> "$out/physics.err"
        local rc=$?
        if [ $first = 1 ]; then grep '^#' "$out/physics.$d.tmp"; grep '^detector' "$out/physics.$d.tmp"; first=0; fi
        if grep -q "^$d	" "$out/physics.$d.tmp"; then grep "^$d	" "$out/physics.$d.tmp"
        else echo "$d	(no row: exit $rc after $((SECONDS - t)) s$( [ $rc = 124 ] && echo ', killed at the hard timeout'))"; fi
        rm -f "$out/physics.$d.tmp"
    done > "$out/physics.txt"
    # Other seeds of the same pile for cpu and GImpact, while the part's budget
    # (ISC_PHYSICS_BUDGET seconds, 260 by default) leaves room for one more at its hard timeout.
    local budget=${ISC_PHYSICS_BUDGET:-260} seeds=${ISC_PHYSICS_SEEDS:-2 3 4 5}
    for seed in $seeds; do
        for d in ${ISC_PHYSICS_SEED_DETECTORS:-cpu bullet-gimpact}; do
            if [ $((SECONDS - t0 + wall + 10)) -gt "$budget" ]; then
                echo "# seed $seed $d: not run (the part's ${budget} s budget)"; continue
            fi
            timeout $((wall + 10)) "$rel" physics --bodies "$bodies" --seed "$seed" --seconds 6 \
                --penetration-every "$every" --wall-limit "$wall" --detectors "$d" 2>> "$out/physics.err" |
                grep "^$d	" | sed "s/^/seed $seed	/" || echo "seed $seed	$d	(no row)"
        done
    done >> "$out/physics.txt"
    echo "# physics part: $((SECONDS - t0)) s" >> "$out/physics.txt"
    echo "=== physics"; cat "$out/physics.txt"; tail -5 "$out/physics.err"
}

soak() {
    local steps=${ISC_SOAK_STEPS:-10000} bodies=${ISC_SOAK_BODIES:-100} wall=${ISC_SOAK_WALL:-45}
    local every=$(( steps >= 10000 ? 1000 : (steps / 5 > 0 ? steps / 5 : 1) ))
    local t0=$SECONDS
    timeout 500 "$rel" soak --bodies "$bodies" --steps "$steps" --switch-every "$every" \
        --churn-every $(( every / 4 > 0 ? every / 4 : 1 )) --churn $(( bodies / 10 > 0 ? bodies / 10 : 1 )) \
        --wall-limit "$wall" > "$out/soak.txt" 2> "$out/soak.err"
    echo "# soak part: exit $? after $((SECONDS - t0)) s" >> "$out/soak.txt"
    echo "=== soak"; head -4 "$out/soak.txt"; tail -12 "$out/soak.txt"; tail -5 "$out/soak.err"
}

for p in $parts; do
    case $p in
        physics) physics ;;
        soak) soak ;;
        *) echo "unknown part '$p' (physics or soak)" >&2; exit 2 ;;
    esac
done
