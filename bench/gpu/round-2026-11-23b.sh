#!/usr/bin/env bash
# GPU round B of 2026-11-23: cullide (detector and broadphase), heightmap and the particles,
# each beside cpu in the same run, medians. Output under $OUT. See round-2026-11-23a.sh.
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
out=${OUT:-/tmp/out}; bin=$PWD/.devrun/bin; mkdir -p "$out"
run() { local name=$1 limit=$2; shift 2; echo "=== $name"; timeout "$limit" "$@" > "$out/$name.txt" 2>&1; echo "rc=$?"; tail -25 "$out/$name.txt"; }
run cullide 150 "$bin/isc_bench_cullide" --benchmark_filter='^(pile|deforming)/100/(cullide|cpu)$' \
  --benchmark_out="$out/cullide.json" --benchmark_out_format=json
run broadphase 100 "$bin/isc_bench_broadphase" --benchmark_filter='BM_(Dbvt|Cullide)/(100|1000)$'
run heightmap 100 "$bin/isc_bench_heightmap" --benchmark_out="$out/heightmap.json" --benchmark_out_format=json
run particles 100 "$bin/isc_bench_particles" --benchmark_out="$out/particles.json" --benchmark_out_format=json
