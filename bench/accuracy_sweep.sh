#!/usr/bin/env bash
# `isc accuracy` over resolutions and axes: one `accuracy:` line per run (with meshes= and
# options=), what bench/plots.sh draws as recall against resolution. Commit the output under
# bench/results/<machine>-<date>-accuracy.txt.
# Usage: bash bench/accuracy_sweep.sh [path/to/isc] > bench/results/llvmpipe-$(date +%F)-accuracy.txt
# Environment: DETECTOR (peel), POSES (100), RESOLUTIONS ("32 64 128 256 512"), AXES ("1 3"),
# MESHES (";"-separated mesh pairs, default "bunny;torus;box bunny"), SEED (1).
set -euo pipefail
isc=${1:-build/release/bin/isc}
detector=${DETECTOR:-peel}
poses=${POSES:-100}
resolutions=${RESOLUTIONS:-32 64 128 256 512}
axes_list=${AXES:-1 3}
seed=${SEED:-1}
IFS=';' read -r -a pairs <<< "${MESHES:-bunny;torus;box bunny}"
echo "# $("$isc" info | grep '^renderer:')"
echo "# isc accuracy --detector $detector --poses $poses --seed $seed, resolutions: $resolutions, axes: $axes_list"
for meshes in "${pairs[@]}"; do
  for axes in $axes_list; do
    for r in $resolutions; do
      # shellcheck disable=SC2086  # a pair is two words: --mesh A B
      "$isc" accuracy --detector "$detector" --poses "$poses" --seed "$seed" --quiet --mesh $meshes \
        --set resolution="$r" --set axes="$axes" | grep '^accuracy:'
    done
  done
done
