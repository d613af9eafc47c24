#!/usr/bin/env bash
# Branch cullide-6's round (issue 9's detector-speed bar): bench/gpu/cullide-speed.sh's detector
# part and its tests part (no broadphase), with the variants this round compares:
#   cullide          the defaults (clusterResolution 8, triangleLevel false)
#   cullide_old      clusterResolution=32,triangleLevel=true (the defaults before this round)
#   cullide_tri      triangleLevel=true (the paper's triangle level, at the new cluster resolution)
#   cullide_c16      clusterResolution=16
#   (cullide_spec, speculate=true, ran in the round's files; the setting is gone since: cullide.md)
# beside cpu and peel in the same process (deforming rows: ISC_CULLIDE_DEFORM_CALLS, 80 here);
# then `isc accuracy --detector cullide` with the defaults and with the variants' settings, and
# the cullide tests on the NVIDIA driver. (Runs 1-3 of the round passed other variants through
# ISC_CULLIDE_SPEED_VARIANTS / _ROWS: named in each results file.)
# Usage on the GPU machine, from the repository root (binaries packed by bench/gpu/pack.sh with
# ISC_PACK_TESTS=1 into ISC_DEVRUN, this script and cullide-speed.sh beside them):
#   ISC_DEVRUN=$PWD/.devrun-cullide-6 bash .devrun-cullide-6/cullide-speed-6.sh
# Writes under $OUT: cullide.txt / .json, accuracy-tests.txt, accuracy-variants.txt, gpu.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dev=${ISC_DEVRUN:-$PWD/.devrun}
out=${OUT:-/tmp/out}
export ISC_CULLIDE_SPEED_PARTS=${ISC_CULLIDE_SPEED_PARTS:-"detector tests"}
export ISC_CULLIDE_DEFORM_CALLS=${ISC_CULLIDE_DEFORM_CALLS:-80}
export ISC_CULLIDE_SPEED_VARIANTS=${ISC_CULLIDE_SPEED_VARIANTS:-"cullide_old:clusterResolution=32,triangleLevel=true;cullide_tri:triangleLevel=true;cullide_c16:clusterResolution=16"}
export ISC_CULLIDE_SPEED_ROWS=${ISC_CULLIDE_SPEED_ROWS:-"cullide|cullide_old|cullide_tri|cullide_c16|cpu|peel"}
export ISC_CULLIDE_SPEED_LIMIT=${ISC_CULLIDE_SPEED_LIMIT:-100}
bash "$here/cullide-speed.sh"
export LD_LIBRARY_PATH=$dev/lib ISC_BUNNY_OBJ=$dev/data/bunny.obj
poses=200
[ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ] && poses=20
for set in "triangleLevel=true" "clusterResolution=32" "clusterResolution=16"; do
  echo "=== isc accuracy --detector cullide --poses $poses --set $set"
  timeout 40 "$dev/bin/isc" accuracy --detector cullide --poses $poses --set "$set" --quiet 2>&1
done > "$out/accuracy-variants.txt"
grep -E "^===|accuracy:" "$out/accuracy-variants.txt"
