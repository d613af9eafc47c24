#!/usr/bin/env bash
# cinder's accuracy against the exact reference, and the paper's mip-map read-back, per
# resolution (docs/detectors/cinder.md, "Accuracy"). Three parts, one `accuracy:` or `detect:`
# line per run:
#  1. `isc accuracy --detector cinder` with defaults on the accuracy suite's mesh pairs;
#  2. recall against resolution (RESOLUTIONS) on bunny/bunny (isc_bench_cinder recall): the
#     defaults (compact read-back, proximity 1.5 px) and the paper's inside test alone
#     (proximity=0), and whether the edge hits found each colliding pose;
#  3. the pairs the mip-map read-back loses: isc_bench_cinder mipmap on a dense pile (one view of
#     the scene, the paper's layout, 2 and 4 reductions) beside the compaction.
# Usage: bash bench/cinder_sweep.sh [build-dir] > bench/results/llvmpipe-$(date +%F)-cinder-accuracy.txt
# Environment: POSES (200, part 1), SWEEP_POSES (60, part 2), RESOLUTIONS ("16 ... 2048"),
# PARTS ("1 2 3"), PILE (30 bodies, part 3), MIPMAP_RESOLUTIONS ("128 256 512 1024", part 3), SEED (1).
set -euo pipefail
build=${1:-build/release}
isc=$build/bin/isc
bench=$build/bench/detectors/isc_bench_cinder
[ -x "$bench" ] || bench=$build/bin/isc_bench_cinder
poses=${POSES:-200}
sweep=${SWEEP_POSES:-60}
resolutions=${RESOLUTIONS:-16 32 64 128 256 512 1024 2048}
seed=${SEED:-1}
echo "# $("$isc" info | grep '^renderer:')"
parts=${PARTS:-1 2 3}
if [[ " $parts " == *" 1 "* ]]; then
echo "# part 1: isc accuracy --detector cinder (defaults) --poses $poses --seed $seed"
for meshes in "bunny" "torus" "box bunny"; do
  # shellcheck disable=SC2086  # a pair is two words: --mesh A B
  "$isc" accuracy --detector cinder --poses "$poses" --seed "$seed" --quiet --mesh $meshes | grep -E '^(accuracy|reference_ms)'
done
fi
if [[ " $parts " == *" 2 "* ]]; then
echo "# part 2: isc_bench_cinder recall $sweep (bunny/bunny, seed 1): defaults and proximity=0, per resolution"
for r in $resolutions; do
  # A tile's slot buffer (resolution^2 x maxLayers x 8 bytes) must fit GL_MAX_SHADER_STORAGE_BLOCK_SIZE
  # (128 MB on llvmpipe): 1024 px there takes 16 layers, 2048 px 4.
  layers=32
  [ "$r" -ge 1024 ] && layers=16
  [ "$r" -ge 2048 ] && layers=${LAYERS_2048:-4}
  "$bench" recall "$sweep" "$r" "$layers" | grep '^recall:'
done
fi
if [[ " $parts " == *" 3 "* ]]; then
echo "# part 3: pairs lost by the mip-map read-back (isc_bench_cinder mipmap ${PILE:-30})"
"$bench" mipmap "${PILE:-30}" "$(echo "${MIPMAP_RESOLUTIONS:-128 256 512 1024}" | tr ' ' ',')"
fi
