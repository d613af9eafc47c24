#!/usr/bin/env bash
# A GPU round (the lead's rounds of 2026-11-25 and 2026-11-27: round-<date>.sh run this), on the lent NVIDIA machine from the repository root after
# `ISC_PACK_TESTS=1 bash bench/gpu/pack.sh` here and the GL debs unpacked there.
# Usage: bench/gpu/round.sh PART...   (parts, in order given; output under $OUT)
#   tests     every test executable on the NVIDIA driver (the tool tests run the packed isc through
#             ISC_TOOL; isc_test_tools needs the build tree's data: left out)
#   accuracy  `isc accuracy` of every registered GPU detector at its defaults, 200 poses
#   demo      `isc demo bunny-pile --headless --bodies 100`: the auto line and the summary
#   peel-again  the 100-bunny pile and deforming pile, cpu beside peel, once more (a second sample)
#   probe-cinder  which cinder resolve shader the driver links: the embedded one, else the variants
#             packed in .devrun/variants/v*/ (used for the parts after it through ISC_SHADER_DIR)
#   soak      the 10,000-step soak (bench/gpu/reliability.sh soak, ISC_SOAK_WALL=6 ISC_SOAK_WARMUP=40)
#   <name>    bench/gpu/<name>.sh (the detectors' and reliability's own benches, beside cpu)
# Everything the parts write goes into one archive $OUT/round-<parts>.tgz (the device returns at
# most 8 files).
set -uo pipefail
export ISC_TOOL=$PWD/.devrun/bin/isc LD_LIBRARY_PATH=$PWD/.devrun/lib ISC_BUNNY_OBJ=${ISC_BUNNY_OBJ:-$PWD/.devrun/data/bunny.obj}
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
final=${OUT:-/tmp/out}; out=$(mktemp -d); bin=$PWD/.devrun/bin; mkdir -p "$final"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$out/gpu.txt"
"$bin/isc" info > "$out/info.txt" 2>&1
for part in "$@"; do
  case $part in
    tests)
      for t in .devrun/tests/*; do
        case $t in *isc_test_tools|*isc_test_demo_window|*fuzz*) continue ;; esac
        echo "=== $t"; timeout 150 "$t" --gtest_brief=1 2>&1 | tail -40
      done > "$out/tests.txt" 2>&1
      grep -E "^===|FAILED|PASSED|SKIPPED|tests? from .* ran" "$out/tests.txt" | tail -120 ;;  # ran: the count, so a test that did not run shows
    accuracy)
      for d in $("$bin/isc" info 2>/dev/null | awk '/^detectors/{f=1;next} f&&/^  [a-z]/{print $1}'); do
        case $d in auto|cpu|heightmap) continue ;; esac  # heightmap: objects against static ones only
        echo "--- $d"; timeout 120 "$bin/isc" accuracy --detector "$d" --poses 200 --quiet 2>&1 | tail -2
      done | tee "$out/accuracy.txt" ;;
    peel-again)
      timeout 200 "$bin/isc_bench_peel" --benchmark_filter='^(pile|deform)/100/(cpu|peel)/' --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true --benchmark_out="$out/peel-again.json" --benchmark_out_format=json \
        > "$out/peel-again.txt" 2>&1
      grep median "$out/peel-again.txt" | awk '{print $1, $2, $3}' ;;
    probe-cinder)
      for v in embedded .devrun/variants/*; do
        if [ "$v" = embedded ]; then unset ISC_SHADER_DIR; else export ISC_SHADER_DIR=$PWD/$v; fi
        if timeout 60 "$bin/isc" accuracy --detector cinder --poses 20 --quiet > "$out/probe-$(basename $v).txt" 2>&1; then
          echo "cinder links with: $v" | tee -a "$out/probe-cinder.txt"; break
        fi
        echo "cinder fails with: $v: $(grep -m1 -i error "$out/probe-$(basename $v).txt")" | tee -a "$out/probe-cinder.txt"
        unset ISC_SHADER_DIR
      done ;;
    soak)
      mkdir -p "$out/soak"; OUT=$out/soak ISC_SOAK_WALL=${ISC_SOAK_WALL:-6} ISC_SOAK_WARMUP=${ISC_SOAK_WARMUP:-40} \
        timeout 300 bash bench/gpu/reliability.sh soak 2>&1 | tail -16 ;;
    demo)
      timeout 200 "$bin/isc" demo bunny-pile --headless --bodies 100 --steps 300 --out "$out/pile100.png" \
        2>&1 | grep -v '^step ' | tee "$out/demo.txt" ;;
    *)
      mkdir -p "$out/$part"; OUT=$out/$part timeout 560 bash "bench/gpu/$part.sh" 2>&1 | tee "$out/$part.log" | tail -60 ;;
  esac
done
tar -czf "$final/round-$(IFS=-; echo "$*").tgz" -C "$out" .
cp "$out"/gpu.txt "$final/" 2>/dev/null
