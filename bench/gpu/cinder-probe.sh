#!/usr/bin/env bash
# Issue 10 on the lent NVIDIA machine: which construct of cinder/resolve.glsl the driver's
# compiler fails on ("C9999: unexpected expression in DUI_foreachId" at link, driver 580), in one
# run; then, with the first variant that keeps the shader's meaning and links (ISC_SHADER_DIR), the
# detector's accuracy and one pile call beside cpu and peel. Needs, packed under $DEV (default
# .devrun-cinder-nv): bin/isc_glsl_probe, bin/isc, bin/isc_bench_cinder, lib/, data/bunny.obj and
# variants/ (bench/gpu/cinder_probe_variants.py shaders/cinder/resolve.glsl $DEV/variants).
# Output under $OUT: probe.txt (one line per variant and define set), accuracy.txt, pile.txt.
set -uo pipefail
dev=${DEV:-$PWD/.devrun-cinder-nv}
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$dev/lib} ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$dev/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=$dev/bin; mkdir -p "$out"
probe() { timeout 60 "$bin/isc_glsl_probe" "$@"; }
{
  echo "== resolve, MAX_LAYERS=32 (the default), readback=compact"
  probe --define MAX_LAYERS=32 cinder/resolve.glsl - "$dev"/variants/*
  echo "== resolve, MAX_LAYERS=32, readback=mipmap (CD_MIPMAP)"
  probe --define MAX_LAYERS=32 --define CD_MIPMAP cinder/resolve.glsl - "$dev"/variants/*
  for l in 4 8 16 64; do echo "== resolve, MAX_LAYERS=$l"; probe --define MAX_LAYERS=$l cinder/resolve.glsl -; done
  echo "== mip.glsl"; probe cinder/mip.glsl -
} > "$out/probe.txt" 2>&1
grep -E "^(==|probe:)|error" "$out/probe.txt" | sed 's/^.*\/variants\///' | head -150
# The first meaning-keeping variant that links in both read-back modes, if the embedded one does not.
pick=""
if ! grep -m1 "^probe: - " "$out/probe.txt" | grep -q " ok"; then
  for v in all-keep r-atomic-select r-first-if r-view-macro r-obj-macro r-small-consts r-cap-if r-no-axis-index \
           r-no-ternary-hit r-flags-if r-no-winding-ternary r-no-hit-struct r-no-shift; do
    [ "$(grep -c "^probe: $dev/variants/$v ok" "$out/probe.txt")" = 2 ] && { pick=$v; break; }
  done
  [ -n "$pick" ] && export ISC_SHADER_DIR=$dev/variants/$pick
fi
echo "== shaders: ${pick:-embedded}" | tee "$out/accuracy.txt" "$out/pile.txt"
timeout 90 "$bin/isc" accuracy --detector cinder --quiet >> "$out/accuracy.txt" 2>&1; echo "accuracy rc=$?"
tail -4 "$out/accuracy.txt"
timeout 60 "$bin/isc_bench_cinder" pile 100 15 >> "$out/pile.txt" 2>&1; echo "pile rc=$?"
tail -8 "$out/pile.txt"
