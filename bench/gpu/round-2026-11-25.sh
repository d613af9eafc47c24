#!/usr/bin/env bash
# GPU round of 2026-11-25, run on the lent NVIDIA machine from the repository root after
# `ISC_PACK_TESTS=1 bash bench/gpu/pack.sh` here and the GL debs unpacked there.
# Usage: bench/gpu/round-2026-11-25.sh PART...   (parts, in order given; output under $OUT)
#   tests     every test executable on the NVIDIA driver (the tool tests need the build tree: left out)
#   accuracy  `isc accuracy` of every registered GPU detector at its defaults, 200 poses
#   demo      `isc demo bunny-pile --headless --bodies 100`: the auto line and the summary
#   <name>    bench/gpu/<name>.sh (the detectors' and reliability's own benches, beside cpu)
set -uo pipefail
export LD_LIBRARY_PATH=$PWD/.devrun/lib ISC_BUNNY_OBJ=$PWD/.devrun/data/bunny.obj
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
out=${OUT:-/tmp/out}; bin=$PWD/.devrun/bin; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/gpu.txt"
"$bin/isc" info > "$out/info.txt" 2>&1
for part in "$@"; do
  case $part in
    tests)
      for t in .devrun/tests/*; do
        case $t in *isc_test_tools|*isc_test_demo_window|*fuzz*) continue ;; esac
        echo "=== $t"; timeout 150 "$t" --gtest_brief=1 2>&1 | tail -40
      done > "$out/tests.txt" 2>&1
      grep -E "^===|FAILED|PASSED" "$out/tests.txt" | tail -80 ;;
    accuracy)
      for d in $("$bin/isc" info 2>/dev/null | awk '/^detectors/{f=1;next} f&&/^  [a-z]/{print $1}'); do
        case $d in auto|cpu|heightmap) continue ;; esac  # heightmap: objects against static ones only
        echo "--- $d"; timeout 120 "$bin/isc" accuracy --detector "$d" --poses 200 --quiet 2>&1 | tail -2
      done | tee "$out/accuracy.txt" ;;
    demo)
      timeout 200 "$bin/isc" demo bunny-pile --headless --bodies 100 --steps 300 --out "$out/pile100.png" \
        2>&1 | grep -v '^step ' | tee "$out/demo.txt" ;;
    *)
      OUT=$out timeout 560 bash "bench/gpu/$part.sh" 2>&1 | tee "$out/$part.log" | tail -60 ;;
  esac
done
