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
# cullide's test executables on the driver into $1/tests-cullide.txt (their summaries printed),
# then cullide_accuracy 200 into $1/accuracy-cullide.txt.
cullide_tests_and_accuracy() {
  TEST_LIMIT=150 run_tests "$dev/tests/isc_test_cullide" "$dev/tests/isc_test_cullide_broadphase" \
    "$dev/tests/isc_test_pile_cullide" > "$1/tests-cullide.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$1/tests-cullide.txt"
  cullide_accuracy 200 | tee "$1/accuracy-cullide.txt" | grep -v "^$"
}
# The final checks' step 0 (final-check-2026-11-29i.sh): peel's and cullide's tests and accuracy,
# then isc_gl_tests on the driver, into $1/tests*.txt and accuracy*.txt.
final_tests_and_accuracy() {
  peel_tests_and_accuracy "$1"
  cullide_tests_and_accuracy "$1"
  TEST_LIMIT=150 run_tests "$dev/tests/isc_gl_tests" > "$1/tests-gl.txt" 2>&1
  grep -E "^(=== |rc=|\[  PASSED|\[  FAILED|\[  SKIPPED)" "$1/tests-gl.txt"
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
# After peel_interleaved: per process of $1/peel.txt, each median row's time (the median of the
# repetitions' means, or a single repetition's mean) and the counters named in $2..; to stdout
# and $1/summary.txt.
peel_summary() {
  local out=$1
  shift
  python3 - "$out/peel.txt" "$@" <<'PY' | tee "$out/summary.txt"
import re, sys
keys = sys.argv[2:]
for line in open(sys.argv[1]):
    if line.startswith("## process"):
        print(line.strip()[3:])
    m = re.match(r"(?:variants/)?(\w+/\w+/(\w+))/\S*?(?:_median|manual_time)\s+([\d.]+) ms", line)
    if m:
        c = dict(re.findall(r"(\w+)=([-\d.e+kmu]+)", line))
        print("  %-24s %6s ms  " % (m.group(1), m.group(3)) + " ".join(f"{k}={c[k]}" for k in keys if k in c))
PY
}
# After start_clocks/stop_clocks: per process named in $1/marks.txt, the SM clock's samples while
# it ran ($1/clocks.csv); to stdout and appended to $1/summary.txt.
clock_summary() {
  python3 - "$1/marks.txt" "$1/clocks.csv" <<'PY' | tee -a "$1/summary.txt"
import sys
marks = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 4 and f[2] in ("start", "end"):
        marks.setdefault(f[0] + " " + f[1], {})[f[2]] = f[3][:12]
rows = []
for line in open(sys.argv[2]):
    f = [x.strip() for x in line.split(",")]
    if len(f) >= 2 and " " in f[0] and f[1].endswith("MHz"):
        rows.append((f[0].split()[1][:12], int(f[1].split()[0])))
for name, m in marks.items():
    sm = [c for t, c in rows if m.get("start", "") <= t <= m.get("end", "99")]
    if sm:
        print(f"clock {name}: SM MHz min {min(sm)} median {sorted(sm)[len(sm)//2]} max {max(sm)} ({len(sm)} samples)")
PY
}
# out=$OUT (default $1), made, with the machine's description in $out/machine.txt.
setup_out() {
  out=${OUT:-$1}
  mkdir -p "$out"
  machine_info > "$out/machine.txt" 2>&1
}
# A round's archive: round_begin NAME keeps $OUT (where the device returns files) in $final,
# makes $out a fresh folder with the machine noted (printed too); round_end NAME packs $out into
# $final/NAME.tgz.
round_begin() {
  final=${OUT:-}
  OUT=$(mktemp -d) setup_out "/tmp/$1-out"
  cat "$out/machine.txt"
}
round_end() {
  if [ -n "$final" ]; then tar -czf "$final/$1.tgz" -C "$out" .; fi
}
# One isc_bench_cullide process, number $2, rows matching $4, at most $3 seconds, into
# $1/cullide-p$2.txt and .json (environment before the call: the bench's ISC_BENCH_CULLIDE_*);
# prints its exit status and its summary table.
# With CULLIDE_REPS=R (2026-11-29, eleventh session) each row runs R times, the runs of all rows
# interleaved at random (isc_bench_cullide: the median of a row's runs' medians), so that the rows
# meet the same GPU clocks.
cullide_process() {
  local out=$1 p=$2 limit=$3 filter=$4 reps=()
  if [ -n "${CULLIDE_REPS:-}" ]; then
    reps=(--benchmark_repetitions="$CULLIDE_REPS" --benchmark_enable_random_interleaving=true)
  fi
  timeout "$limit" "$bin/isc_bench_cullide" --benchmark_filter="$filter" "${reps[@]}" \
    --benchmark_out="$out/cullide-p$p.json" --benchmark_out_format=json > "$out/cullide-p$p.txt" 2>&1
  echo "rc=$?"
  sed -n '/# isc_bench_cullide summary/,/# cullide per level/p' "$out/cullide-p$p.txt"
}
# The array `orders` for cullide_processes: $2 processes over the rows cullide, those of the
# variants $1 ("<row>:<HOOK=v>[,...];..."), cpu and peel, process p starting at row 3p (mod).
cullide_orders() {
  local v o p k rows=(cullide) vs
  IFS=';' read -ra vs <<< "$1"
  for v in "${vs[@]}"; do rows+=("${v%%:*}"); done
  rows+=(cpu peel)
  orders=()
  for ((p = 0; p < $2; p++)); do
    o=""; for ((k = 0; k < ${#rows[@]}; k++)); do o+="${o:+,}${rows[$(((p * 3 + k) % ${#rows[@]}))]}"; done
    orders+=("$o")
  done
}
# isc_bench_cullide in $2 processes over pile/$3 and deforming/$3 ($4 calls per deforming row),
# with the rows of ISC_BENCH_CULLIDE_VARIANTS=$5; process p's rows in the order of the caller's
# array `orders`, entry (p - 1) mod its length; the GPU clocks sampled meanwhile ($1/clocks.csv).
# With CULLIDE_REPS=R the calls and the pile's 0.5 s are split over the R interleaved runs.
cullide_processes() {
  local out=$1 procs=$2 size=$3 calls=$4 variants=$5 p order pile=0.5
  if [ -n "${CULLIDE_REPS:-}" ]; then
    calls=$(((calls + CULLIDE_REPS - 1) / CULLIDE_REPS))
    pile=$(python3 -c "print(0.5 / $CULLIDE_REPS)")
  fi
  start_clocks "$out"
  for ((p = 1; p <= procs; p++)); do
    order=${orders[$(((p - 1) % ${#orders[@]}))]}
    echo "=== cullide process $p ($order)"
    ISC_BENCH_CULLIDE_PILE_MIN_TIME=$pile \
    ISC_BENCH_CULLIDE_SIZES=$size ISC_BENCH_CULLIDE_DEFORM_CALLS=$calls ISC_BENCH_CULLIDE_PATTERNS="" \
    ISC_BENCH_CULLIDE_VARIANTS="$variants" ISC_BENCH_CULLIDE_ORDER="$order" \
      cullide_process "$out" "$p" 90 "^(pile|deforming)/$size/"
  done
  stop_clocks
}
# The lead's checks (final-check-2026-11-29g/h.sh): the deforming pile back to back in $2
# processes, the rows of deform_b2b/100 matching the alternation $3 ("cpu|peel|..."), each
# process's five repetitions interleaved at random within $4 seconds, the SM clock recorded; then
# the rows' summary and each process's clock. Into $1/peel.txt, summary.txt, marks.txt, clocks.csv.
peel_b2b_processes() {
  local out=$1 procs=$2 rows=$3 limit=$4 p
  start_clocks "$out"
  export ISC_PEEL_BENCH_MIN_TIME=${ISC_PEEL_BENCH_MIN_TIME:-0.1}
  for ((p = 1; p <= procs; p++)); do
    echo "## process $p: b2b" >> "$out/peel.txt"
    peel_interleaved "$out" "^(variants/)?deform_b2b/100/($rows)/" 5 "$limit" "$p b2b"
  done
  stop_clocks
  peel_summary "$out" cpu_refit_ms cpu_walk_ms gpu_wait_ms cpu_exact_ms exact_speculate_ms
  clock_summary "$out"
}
# Then cullide beside cpu and peel on pile/100 and deforming/100 (80 calls) in $3 processes with
# the variant rows $2 ("<row>:<HOOK=v>[,...];..."), orders rotated; into $1/cullide/.
cullide_check() {
  mkdir -p "$1/cullide"
  cullide_orders "$2" "$3"
  cullide_processes "$1/cullide" "$3" 100 80 "$2"
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
