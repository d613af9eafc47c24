#!/usr/bin/env bash
# Issue 9's two open bars on the lent GPU, one run (about 2 minutes on an H100):
#  1. the cullide detector beside cpu and peel (its defaults) on the 100-bunny pile and the
#     deforming pile: the defaults (levels chained on the GPU, the GPU float filter), the chain
#     without the filter (gpuFilter=false: survivors paired on the CPU) and the levels read back
#     one by one (chain=false: round D's path);
#  2. the Bullet broadphase against btDbvtBroadphase alone at 100 and 1000 bodies, cpu in the
#     dispatcher: object pass (default), then the cluster level on boxes and on triangles, each
#     with its validate row (pruned pairs that cpu finds touching: lost_pairs); then, in a second
#     process with ISC_BENCH_BROADPHASE_OBJECT_PASS=0, the cluster level alone (no object pass:
#     one GPU round trip a step);
#  3. (part "gimpact", not run by default) the same broadphase rows with stock Bullet in the
#     dispatcher (btCollisionDispatcher, btGImpactMeshShape and btGImpactCollisionAlgorithm:
#     ISC_BENCH_BROADPHASE_DETECTOR=bullet-gimpact), 100 bodies (180 steps) and 1000 (40 steps, as the cpu rows):
#     does a dispatcher that is not ours spend time on the pairs the broadphase prunes? (lost
#     pairs counted at 100 bodies with the cluster boxes; the rows take about 50-65 s each at
#     100 bodies and 16-20 s at 1000 on an H200 host: 2026-11-27 late night the part ran out of
#     its 240 s before the validate row, so the limit is now 480 s);
# then `isc accuracy --detector cullide` and the cullide tests on the NVIDIA driver.
#
# Usage, on the GPU machine in the repository root, with the binaries packed as
# bench/gpu/pack.sh packs them (ISC_PACK_TESTS=1) into ISC_DEVRUN (default .devrun):
#   ISC_DEVRUN=$PWD/.devrun-cullide-speed bash bench/gpu/cullide-speed.sh
# Smoke test on llvmpipe: ISC_CULLIDE_GPU_SMOKE=1 (8-bunny scenes, 100 bodies, 2 steps, 20 poses).
# ISC_CULLIDE_SPEED_PARTS (default "detector broadphase tests"): which parts run. The detector
# part also runs the chain without the triangle level's passes (triangleLevel=false: the GPU
# filter alone narrows the wanted clusters' triangles), that with the cluster level on the
# clusters' boxes (clusterBoxes=true) and at 32 px (clusterResolution=32), and the chain
# without the filter (gpuFilter=false); ISC_CULLIDE_SPEED_VARIANTS / ISC_CULLIDE_SPEED_ROWS
# replace those variants / the rows run (a regex alternation of row names).
# (chain=false, round D's path: cullide_unchained in the round-E run 1 file); the deforming rows time 40 calls (five rounds of the eight frames: the GPU stays clocked up).
# Writes under $OUT (default /tmp/out): cullide.txt, cullide.json, broadphase-cpu.txt,
# broadphase-cpu-clusters-alone.txt, broadphase-gimpact.txt, accuracy-tests.txt, gpu.txt.
set -uo pipefail
dev=${ISC_DEVRUN:-$PWD/.devrun}
export LD_LIBRARY_PATH=$dev/lib ISC_BUNNY_OBJ=$dev/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f "$nv" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=${__EGL_VENDOR_LIBRARY_FILENAMES:-$nv}
out=${OUT:-/tmp/out}; bin=$dev/bin; mkdir -p "$out"
size=100; bodies='100|1000'; poses=200
if [ "${ISC_CULLIDE_GPU_SMOKE:-0}" = 1 ]; then
  size=8; bodies=100; poses=20; export ISC_BENCH_BROADPHASE_STEPS=2
fi
run() { local name=$1 limit=$2; shift 2; echo "=== $name"; timeout "$limit" "$@" > "$out/$name.txt" 2>&1; echo "rc=$?"; }

{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"; date -u; } \
  > "$out/gpu.txt"
cat "$out/gpu.txt"

parts=${ISC_CULLIDE_SPEED_PARTS:-detector broadphase tests}
has() { case " $parts " in *" $1 "*) return 0;; esac; return 1; }

if has detector; then
ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=${ISC_CULLIDE_DEFORM_CALLS:-40} \
ISC_BENCH_CULLIDE_VARIANTS=${ISC_CULLIDE_SPEED_VARIANTS:-"cullide_notri:triangleLevel=false;cullide_boxes_notri:clusterBoxes=true,triangleLevel=false;cullide_c32_notri:clusterResolution=32,triangleLevel=false;cullide_nofilter:gpuFilter=false"} \
  run cullide ${ISC_CULLIDE_SPEED_LIMIT:-70} "$bin/isc_bench_cullide" \
  --benchmark_filter="^(pile|deforming)/$size/(${ISC_CULLIDE_SPEED_ROWS:-cullide|cullide_notri|cullide_boxes_notri|cullide_c32_notri|cullide_nofilter|cpu|peel})/" \
  --benchmark_out="$out/cullide.json" --benchmark_out_format=json
sed -n '/# isc_bench_cullide summary/,$p' "$out/cullide.txt"
fi

if has broadphase; then
ISC_BENCH_BROADPHASE_STEPS_1000=40 run broadphase-cpu 90 "$bin/isc_bench_broadphase" \
  --benchmark_filter="^BM_(Dbvt|Cullide|CullideClusterBoxes|CullideClusters)(Validate)?/($bodies)/"
sed -n '/# isc_bench_broadphase summary/,$p' "$out/broadphase-cpu.txt"

ISC_BENCH_BROADPHASE_OBJECT_PASS=0 ISC_BENCH_BROADPHASE_STEPS_1000=40 run broadphase-cpu-clusters-alone 60 \
  "$bin/isc_bench_broadphase" --benchmark_filter="^BM_(Dbvt|CullideClusterBoxes|CullideClusters)(Validate)?/($bodies)/"
sed -n '/# isc_bench_broadphase summary/,$p' "$out/broadphase-cpu-clusters-alone.txt"
fi

if has gimpact; then
ISC_BENCH_BROADPHASE_DETECTOR=bullet-gimpact ISC_BENCH_BROADPHASE_STEPS_1000=${ISC_GIMPACT_STEPS_1000:-40} \
  run broadphase-gimpact ${ISC_GIMPACT_LIMIT:-480} "$bin/isc_bench_broadphase" \
  --benchmark_filter="^BM_(Dbvt|Cullide|CullideClusterBoxes)/($bodies)/|^BM_CullideClusterBoxesValidate/100/"
sed -n '/# isc_bench_broadphase summary/,$p' "$out/broadphase-gimpact.txt"
fi

has tests && {
  echo "=== isc accuracy --detector cullide --poses $poses"
  timeout 40 "$bin/isc" accuracy --detector cullide --poses $poses --quiet 2>&1
  for t in "$dev"/tests/isc_test_cullide* "$dev"/tests/isc_test_pile_cullide; do
    [ -x "$t" ] || continue
    echo "=== $t"
    timeout 45 "$t" --gtest_brief=1 2>&1
    echo "rc=$?"
  done
} > "$out/accuracy-tests.txt" && grep -E "^===|accuracy:|FAILED|PASSED|^rc=" "$out/accuracy-tests.txt"
echo "elapsed ${SECONDS}s" | tee -a "$out/gpu.txt"
