#!/usr/bin/env bash
# What the NVIDIA driver's program binaries say about the hot passes' registers and memory
# (2026-11-29, eighth session: peel's triangle pairs got 20 % faster when more workgroups fit an
# SM; are cullide's filter, splats and pair pass limited the same way?). isc_glsl_probe
# --binary-info on: peel's triangle pairs on the CPU walk's records (survivors 256 at a time and
# all at once), cullide's filter (wide and narrow), splat (triangles, one view) and chain passes.
# On the lent machine from the repository root, binaries packed by bench/gpu/pack.sh.
# Writes $OUT/occupancy-probe.txt.
set -uo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/packed.sh" .devrun
out=${OUT:-/tmp}/occupancy-probe.txt
probe=$bin/isc_glsl_probe
{
  machine_info
  rec="--define PEEL_LOCAL_VERTICES=1 --define PEEL_WALK_RECORDS=1 --define PEEL_RECORD_BOXES=1"
  echo "## peel/tri_pairs.glsl, records with boxes, survivors 256 at a time"
  # shellcheck disable=SC2086
  "$probe" --binary-info $rec --define PEEL_SURVIVOR_CHUNK=256u peel/tri_pairs.glsl -
  echo "## peel/tri_pairs.glsl, records with boxes, all at once"
  # shellcheck disable=SC2086
  "$probe" --binary-info $rec peel/tri_pairs.glsl -
  echo "## cullide/filter.glsl, wide (the default)"
  "$probe" --binary-info --define CULLIDE_FILTER_WIDE=1 cullide/filter.glsl -
  echo "## cullide/filter.glsl, narrow"
  "$probe" --binary-info cullide/filter.glsl -
  echo "## cullide/splat.glsl, triangles, one view"
  "$probe" --binary-info cullide/splat.glsl -
  echo "## cullide/chain.glsl"
  "$probe" --binary-info cullide/chain.glsl -
  echo "## cullide/pose.glsl"
  "$probe" --binary-info cullide/pose.glsl -
} > "$out" 2>&1
cat "$out"
