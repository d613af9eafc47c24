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
# peel's test executables (isc_test_peel, _units, isc_test_detector_lifetime) into $1/tests.txt
# and `isc accuracy --detector peel` (200 poses) into $1/accuracy.txt, the summary lines printed.
peel_tests_and_accuracy() {
  local t out=$1
  for t in isc_test_peel isc_test_peel_units isc_test_detector_lifetime; do
    echo "## $t" >> "$out/tests.txt"
    timeout 150 "$dev/tests/$t" >> "$out/tests.txt" 2>&1
    echo "rc $?" >> "$out/tests.txt"
  done
  grep -E "^(## |rc |\[  PASSED|\[  FAILED|\[  SKIPPED)" "$out/tests.txt"
  timeout 120 "$bin/isc" accuracy --detector peel --poses 200 --seed 1 > "$out/accuracy.txt" 2>&1
  echo "accuracy rc $?"; tail -5 "$out/accuracy.txt"
}
# `isc accuracy --detector cullide` over $1 poses at the defaults, with clusterAxes=3 and with axes=1.
cullide_accuracy() {
  local set poses=$1
  for set in "" "--set clusterAxes=3" "--set axes=1"; do
    echo "=== isc accuracy --detector cullide --poses $poses${set:+ $set}"
    # shellcheck disable=SC2086
    timeout 40 "$bin/isc" accuracy --detector cullide --poses $poses $set --quiet 2>&1
  done
}
# The GPU's clocks sampled every 20 ms into $1/clocks.csv (nvidia-smi, read only) until stop_clocks.
start_clocks() {
  smi=""
  if command -v nvidia-smi > /dev/null; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,utilization.gpu --format=csv -lms 20 > "$1/clocks.csv" 2>&1 &
    smi=$!
  fi
}
stop_clocks() { [ -n "${smi:-}" ] && kill "$smi"; }
# One isc_bench_peel process: rows matching $2, $3 repetitions interleaved at random (every row
# sees the same GPU clock), at most $4 seconds, appended to $1/peel.txt; start and end times
# (named $5) in $1/marks.txt. Environment for the process: anything before the call (env ...).
peel_interleaved() {
  local out=$1 filter=$2 reps=$3 limit=$4 name=$5
  echo "$name start $(date +%H:%M:%S.%N)" >> "$out/marks.txt"
  timeout "$limit" "$bin/isc_bench_peel" --benchmark_filter="$filter" \
    --benchmark_repetitions="$reps" --benchmark_enable_random_interleaving=true \
    --benchmark_report_aggregates_only=true >> "$out/peel.txt" 2>&1
  echo "$name end $(date +%H:%M:%S.%N) rc $?" >> "$out/marks.txt"
}
# out=$OUT (default $1), made, with the machine's description in $out/machine.txt.
setup_out() {
  out=${OUT:-$1}
  mkdir -p "$out"
  machine_info > "$out/machine.txt" 2>&1
}
# One isc_bench_cullide process, number $2, rows matching $4, at most $3 seconds, into
# $1/cullide-p$2.txt and .json (environment before the call: the bench's ISC_BENCH_CULLIDE_*);
# prints its exit status and its summary table.
cullide_process() {
  local out=$1 p=$2 limit=$3 filter=$4
  timeout "$limit" "$bin/isc_bench_cullide" --benchmark_filter="$filter" \
    --benchmark_out="$out/cullide-p$p.json" --benchmark_out_format=json > "$out/cullide-p$p.txt" 2>&1
  echo "rc=$?"
  sed -n '/# isc_bench_cullide summary/,/# cullide per level/p' "$out/cullide-p$p.txt"
}
# isc_bench_peel_exact (peel's exact stage alone, no GL) run 4 times with the test hook $2 (an
# environment variable) at 1, 0, 1, 0, $3 calls each, into $1/exact.txt; prints it.
peel_exact_ab() {
  local out=$1 hook=$2 calls=$3 v
  for v in 1 0 1 0; do
    echo "$hook=$v $(env "$hook=$v" timeout 60 "$bin/isc_bench_peel_exact" "$calls" 2>&1)" >> "$out/exact.txt"
  done
  cat "$out/exact.txt"
}
