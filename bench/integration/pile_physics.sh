#!/usr/bin/env bash
# The bunny pile's physics (not its speed): penetration measured from the poses alone
# (RigidWorld::measurePenetration, every step), whether it settles, contacts, and the pairs
# served by the exact path, for cpu, peel and stock Bullet GImpact on one scene, and for cpu
# on seeds 1-8. Physics figures do not depend on the machine's load; the step times printed
# beside them do (use isc_bench_pile for speed).
#
#   bash bench/integration/pile_physics.sh build/release/bin/isc > bench/results/<machine>-<date>-pile-physics.txt
#
# ISC_PILE_PHYSICS_PARTS picks parts (default "detectors seeds stats"):
#   detectors  30 bunnies, 300 steps, seed 1: cpu, peel (resolution 128, 1 axis), bullet-gimpact
#   seeds      30 bunnies, 300 steps, cpu, seeds 1..8
#   stats      40 steps with --detector-stats (the dispatcher's split, the detector's counters):
#              cpu, peel 128 / 1 axis, peel 64 / 1 axis
set -euo pipefail
isc=${1:?usage: pile_physics.sh path/to/isc}
parts=${ISC_PILE_PHYSICS_PARTS:-detectors seeds stats}
echo "# pile physics, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -n), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$isc" info | head -5
run() {
    echo "=== isc demo bunny-pile $*"
    "$isc" demo bunny-pile --headless --out '' "$@" | grep -E '^(summary|detector|step|  )' || true
}
for part in $parts; do
    case $part in
        detectors)
            run --bodies 30 --steps 300 --seed 1 --detector cpu
            run --bodies 30 --steps 300 --seed 1 --detector peel --set resolution=128 --set axes=1
            run --bodies 30 --steps 300 --seed 1 --detector bullet-gimpact
            ;;
        seeds)
            for seed in 1 2 3 4 5 6 7 8; do run --bodies 30 --steps 300 --seed "$seed" --detector cpu; done
            ;;
        stats)
            run --bodies 30 --steps 40 --seed 1 --detector cpu --detector-stats
            run --bodies 30 --steps 40 --seed 1 --detector peel --set resolution=128 --set axes=1 --detector-stats
            run --bodies 30 --steps 40 --seed 1 --detector peel --set resolution=64 --set axes=1 --detector-stats
            ;;
        *) echo "unknown part '$part'" >&2; exit 2 ;;
    esac
done
