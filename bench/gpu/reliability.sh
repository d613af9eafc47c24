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
#   tunnelling at 5 and 20 m/s, over up to ISC_PHYSICS_SECONDS (8) simulated seconds. A run stops
#   early once the whole pile sleeps or a body falls through the ground; each detector has a
#   wall-clock limit (ISC_PHYSICS_WALL, 28 s, then a hard timeout 10 s later). The slow ones
#   (ISC_PHYSICS_SLOW: cinder and stock GImpact, ~0.25-0.3 s a step at 100 bunnies on the H100;
#   set it empty to run them like the others)
#   run beside the others with their own limit (ISC_PHYSICS_SLOW_WALL, 200 s). Then, while the
#   part's budget (ISC_PHYSICS_BUDGET, 240 s) lasts, seeds 2-9 of the same pile for cpu (rows
#   "seed N<TAB>detector ...": how much the settling time varies).
# soak: 100 bunnies, 10,000 steps of 1/60 s, 10 bodies taken out / put back every 250 steps, the
#   detector switched every 1,000 steps among every registered detector (one that cannot be made
#   is skipped; one that takes more than ISC_SOAK_WALL seconds of one period hands over early),
#   after a warm-up round before step 1,000 (every detector for ISC_SOAK_WARMUP steps, default
#   100 at 10,000 steps: each one's first use, so that step 1,000 is the baseline the issue's
#   "within 5 % at step 10,000" compares with; the dispatcher keeps the detectors it made);
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
devrun=${ISC_DEVRUN:-$PWD/.devrun}  # the packed binaries' folder (bin, lib, data)
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$devrun/lib
[ -f "$devrun/data/bunny.obj" ] && export ISC_BUNNY_OBJ=$devrun/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${ISC_BIN:-$devrun/bin}; mkdir -p "$out"
rel=$bin/isc_bench_reliability
{ date -u; nproc; nvidia-smi -L 2>/dev/null; [ -x "$bin/isc" ] && "$bin/isc" info 2>&1 | head -8; } >> "$out/info.txt"

physics() {
    local bodies=${ISC_PHYSICS_BODIES:-100} wall=${ISC_PHYSICS_WALL:-28} every=${ISC_PHYSICS_PROBE_EVERY:-2}
    local seconds=${ISC_PHYSICS_SECONDS:-8} budget=${ISC_PHYSICS_BUDGET:-240}
    local slow=${ISC_PHYSICS_SLOW-cinder bullet-gimpact} slowWall=${ISC_PHYSICS_SLOW_WALL:-200}
    local detectors=${ISC_PHYSICS_DETECTORS:-$("$rel" list 2>/dev/null)}
    local t0=$SECONDS cores
    cores=$(nproc)
    : > "$out/physics.err"
    # One detector on one seed in its own process: physics.<detector>.<seed>.tmp, and .rc with
    # its exit status and seconds.
    one() {
        local d=$1 seed=$2 w=$3 threads=$4 t=$SECONDS
        OMP_NUM_THREADS=$threads timeout $((w + 10)) "$rel" physics --bodies "$bodies" --seed "$seed" \
            --seconds "$seconds" --penetration-every "$every" --wall-limit "$w" --detectors "$d" \
            > "$out/physics.$d.$seed.tmp" 2>> "$out/physics.err"
        echo "$? $((SECONDS - t))" > "$out/physics.$d.$seed.rc"
    }
    row() {  # detector seed prefix
        local f="$out/physics.$1.$2.tmp" rc secs
        if grep -q "^$1	" "$f" 2>/dev/null; then grep "^$1	" "$f" | sed "s/^/$3/"
        else
            read -r rc secs < "$out/physics.$1.$2.rc"
            echo "$3$1	(no row: exit $rc after $secs s$( [ "$rc" = 124 ] && echo ', killed at the hard timeout'))"
        fi
    }
    # The slow ones (stock GImpact is single-threaded Bullet: ~240 ms a step at 100 bunnies on
    # the H100 host; cinder ~300 ms) run beside the rest, 3 OpenMP threads each, with their own
    # wall-clock limit; the others one after another on the remaining cores. Physics figures do
    # not depend on that; step_ms does (speed: isc_bench_pile and the detector benches).
    local bgThreads=3 nbg=0 d seed
    for d in $detectors; do
        case " $slow " in *" $d "*) one "$d" 1 "$slowWall" "$bgThreads" & nbg=$((nbg + 1)) ;; esac
    done
    local fgThreads=$(( cores - nbg * bgThreads > 1 ? cores - nbg * bgThreads : 1 ))
    for d in $detectors; do
        case " $slow " in *" $d "*) ;; *) one "$d" 1 "$wall" "$fgThreads" ;; esac
    done
    # Other seeds of the same pile (cpu by default) while the part's budget leaves room for one
    # more at its hard timeout: how much the settling time varies.
    local seedsRun=""
    for seed in ${ISC_PHYSICS_SEEDS:-2 3 4 5 6 7 8 9}; do
        for d in ${ISC_PHYSICS_SEED_DETECTORS:-cpu}; do
            [ $((SECONDS - t0 + wall + 10)) -gt "$budget" ] && continue
            one "$d" "$seed" "$wall" "$fgThreads"
            seedsRun="$seedsRun $d:$seed"
        done
    done
    wait
    {
        local head
        head=$(ls "$out"/physics.*.1.tmp 2>/dev/null | head -1)
        [ -n "$head" ] && grep "^#" "$head"
        echo "# run: one process per detector and seed; $slow beside the others ($bgThreads OpenMP threads each, wall-clock limit $slowWall s), the rest one after another ($fgThreads threads, limit $wall s); a row's wall_s and step_ms depend on that, its physics does not"
        [ -n "$head" ] && grep '^detector' "$head"
        for d in $detectors; do row "$d" 1 ""; done
        for ds in $seedsRun; do row "${ds%%:*}" "${ds##*:}" "seed ${ds##*:}	"; done
        echo "# physics part: $((SECONDS - t0)) s"
    } > "$out/physics.txt"
    rm -f "$out"/physics.*.tmp "$out"/physics.*.rc
    echo "=== physics"; cat "$out/physics.txt"; grep -v '^warning' "$out/physics.err" | tail -5
}

soak() {
    local steps=${ISC_SOAK_STEPS:-10000} bodies=${ISC_SOAK_BODIES:-100} wall=${ISC_SOAK_WALL:-45}
    local every=$(( steps >= 10000 ? 1000 : (steps / 5 > 0 ? steps / 5 : 1) ))
    local warmup=${ISC_SOAK_WARMUP:-$(( steps >= 10000 ? 100 : 0 ))}
    local t0=$SECONDS
    timeout 500 "$rel" soak --bodies "$bodies" --steps "$steps" --switch-every "$every" \
        --churn-every $(( every / 4 > 0 ? every / 4 : 1 )) --churn $(( bodies / 10 > 0 ? bodies / 10 : 1 )) \
        --wall-limit "$wall" --warmup "$warmup" ${ISC_SOAK_DETECTORS:+--detectors "$ISC_SOAK_DETECTORS"} \
        > "$out/soak.txt" 2> "$out/soak.err"
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
