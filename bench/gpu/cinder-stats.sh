#!/usr/bin/env bash
# Issue 10, where cinder's time goes on the lent GPU (after bench/gpu/cinder.sh): the snow-bunny
# demo with cinder alone (10,000 spheres, 30 steps, 32 px; bench/gpu/cinder.sh cut it at 18 steps
# by its 75 s limit) and the 100-bunny pile demo (5 steps), both with --detector-stats: the
# dispatcher's split and the detector's counters (gpu_edges_ms, gpu_surfaces_ms,
# gpu_resolve_ms, cpu_exact_ms, views, hits, ...) every STEPS/10 steps. Needs the packed binaries
# (BIN, default .devrun/bin). Output under $OUT: snow-cinder-stats.txt, pile-cinder-stats.txt.
# Tiny sizes for a dry run here: SNOW=20 STEPS=10 FROM=4 PILE=6 OUT=/tmp/o bash bench/gpu/cinder-stats.sh
set -uo pipefail
export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-$PWD/.devrun/lib} ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$PWD/.devrun/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
out=${OUT:-/tmp/out}; bin=${BIN:-$PWD/.devrun/bin}; mkdir -p "$out"
steps=${STEPS:-30} from=${FROM:-12}
f=$out/snow-cinder-stats.txt
timeout "${LIMIT:-150}" "$bin/isc" demo snow-bunny --headless --bodies "${SNOW:-10000}" --steps "$steps" --detector cinder \
  --set resolution=32 --detector-stats --out '' > "$f" 2>&1; echo "snow rc=$?"
# The mean over the steps after FROM from the running means (as bench/gpu/cinder.sh).
awk -v from="$from" '/^step / { split($2, nm, "/"); n = nm[1] + 0; ms[n] = $3; col[n] = $6; if (n > last) last = n }
  END { if (!(from in ms) || last <= from) { print "snow: detector=cinder no progress line after step " from; exit }
        printf "snow: detector=cinder steps=%d..%d step_ms=%.1f collision_ms=%.1f\n", from + 1, last,
               (last * ms[last] - from * ms[from]) / (last - from), (last * col[last] - from * col[from]) / (last - from) }' "$f" | tee -a "$f"
tail -4 "$f" | cut -c1-400
timeout 60 "$bin/isc" demo bunny-pile --headless --bodies "${PILE:-100}" --steps 5 --detector cinder --detector-stats --out '' \
  > "$out/pile-cinder-stats.txt" 2>&1; echo "pile rc=$?"
tail -3 "$out/pile-cinder-stats.txt" | cut -c1-400
