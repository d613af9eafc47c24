#!/usr/bin/env bash
# The read-back through gl::MappedCopy (a GPU copy into a mapped host buffer and one fence)
# against glGetBufferSubData on the buffers the shaders write (main before it, c9d6c05), side by
# side on the lent NVIDIA machine: cinder, heightmap, slices and the particles, old and new
# binaries alternating, two rounds. Run from the repository root after
# `bench/gpu/pack.sh build/release` (the new binaries, .devrun/bin) and the old ones copied to
# .devrun/old/ (isc_bench_cinder, isc_bench_heightmap, isc_bench_slices, isc_bench_particles,
# built at c9d6c05 with the same libraries), the GL debs unpacked there.
# Writes under $OUT: <bench>-<old|new>-<round>.txt, and warnings-<old|new>.txt: the same benches
# once more with ISC_GL_DEBUG=1 (the driver's "Buffer performance warning ... moved from VIDEO
# memory to HOST memory" lines counted per buffer; debug contexts are slower, so no timing from it).
# Small local check (llvmpipe): READBACK_PILE=6 READBACK_PARTICLES=10000 OUT=/tmp/o bash bench/gpu/readback.sh
set -uo pipefail
source bench/gpu/packed.sh .devrun
out=${OUT:-/tmp/out}; mkdir -p "$out"
machine_info | tee "$out/machine.txt"
pile=${READBACK_PILE:-100}; particles=${READBACK_PARTICLES:-1000000}
run_benches() {  # $1: folder of the binaries, $2: tag
  local b=$1 tag=$2
  timeout 120 "$b/isc_bench_cinder" pile "$pile" "${READBACK_CALLS:-5}" > "$out/cinder-$tag.txt" 2>&1
  timeout 120 "$b/isc_bench_heightmap" --benchmark_filter='field100/heightmap_64' > "$out/heightmap-$tag.txt" 2>&1
  ISC_BENCH_SLICES_SIZES=$pile timeout 120 "$b/isc_bench_slices" --benchmark_filter='/slices/' \
    > "$out/slices-$tag.txt" 2>&1
  ISC_BENCH_PARTICLES=$particles timeout 120 "$b/isc_bench_particles" --benchmark_filter='particles/gpu' \
    > "$out/particles-$tag.txt" 2>&1
}
for round in 1 2; do
  for v in old new; do
    b=$bin; [ $v = old ] && b=$PWD/.devrun/old
    echo "=== $v round $round at +${SECONDS} s"
    run_benches "$b" "$v-$round"
  done
done
for v in old new; do
  b=$bin; [ $v = old ] && b=$PWD/.devrun/old
  (export ISC_GL_DEBUG=1; run_benches "$b" "$v-debug")
  cat "$out"/*-"$v"-debug.txt 2>/dev/null | grep -o 'Buffer performance warning: Buffer object [^(]*' | sort | uniq -c \
    > "$out/warnings-$v.txt"
  echo "--- $v: driver warnings of buffers moved to host memory"; cat "$out/warnings-$v.txt"
done
echo "--- summaries"
for f in "$out"/{cinder,heightmap,slices,particles}-{old,new}-[12].txt; do
  echo "# $(basename "$f")"
  grep -E "detector=cinder options=defaults|field100/|^\| pile/[0-9]+ \| slices |particles/gpu" "$f" | cut -c1-220
done
