# Sourced by the device scripts (bench/gpu/*.sh) from the repository root on the lent machine:
# the packed binaries (bench/gpu/pack.sh) in the folder named by the script's first argument
# (default .devrun), their libraries and the bunny, and the NVIDIA EGL vendor where the GL debs
# put it. The folder may be given relative to the repository root or absolute. Sets dir (as
# given), dev (its absolute path) and bin.
dir=${1:-.devrun}
case $dir in /*) dev=$dir ;; *) dev=$PWD/$dir ;; esac
bin=$dev/bin
export LD_LIBRARY_PATH=$dev/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ISC_BUNNY_OBJ=$dev/data/bunny.obj
nv=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f $nv ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$nv
# The machine a script's figures come from: GPU, driver and clocks, cores, OpenMP, CPU, load.
machine_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,pstate --format=csv,noheader 2>/dev/null ||
    echo "no nvidia-smi"
  echo "nproc $(nproc)"
  echo "OMP_NUM_THREADS ${OMP_NUM_THREADS:-unset} OMP_WAIT_POLICY ${OMP_WAIT_POLICY:-unset}"
  grep -m1 "model name" /proc/cpuinfo
  echo "loadavg $(cat /proc/loadavg)"
}
# Runs each test executable given that exists (brief output, its exit status after it; at most
# TEST_LIMIT seconds each, default 60).
run_tests() {
  local t
  for t in "$@"; do
    [ -x "$t" ] || continue
    echo "=== $t"; timeout "${TEST_LIMIT:-60}" "$t" --gtest_brief=1 2>&1; echo "rc=$?"
  done
}
