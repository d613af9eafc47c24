#!/usr/bin/env bash
# Runs each libFuzzer target (tests/fuzz, built by the sanitize preset) for <seconds>, on
# its seed corpus tests/fuzz/corpus/<target> (read only: new inputs go to a scratch folder,
# build/sanitize/fuzz/<target>/new, kept between runs).
# A crash or a broken invariant stops that target, leaves its input in build/sanitize/fuzz/
# (crash-*, leak-*, timeout-*) and makes the script fail. docs/robustness.md: what each checks.
#   bash scripts/fuzz.sh <seconds> [target ...]     (CI: bash scripts/fuzz.sh 60)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: scripts/fuzz.sh <seconds> [target ...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_obj_loader fuzz_mesh_create fuzz_settings fuzz_detect)
build=build/sanitize
[ -x "$build/tests/fuzz/${targets[0]}" ] || bash scripts/build.sh sanitize
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
    work=$build/fuzz/$t
    mkdir -p "$work/new"  # kept between runs: a later run goes on from what an earlier one found
    echo "fuzz: $t for ${seconds}s"
    start=$(date +%s)
    if "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=4096 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "tests/fuzz/corpus/$t" >"$work/log.txt" 2>&1; then
        echo "fuzz: $t ok: $(grep -E '^stat::number_of_executed_units' "$work/log.txt" | awk '{print $2}') runs" \
             "in $(( $(date +%s) - start )) s, scratch corpus $(ls "$work/new" | wc -l) inputs"
    else
        echo "fuzz: $t FAILED after $(( $(date +%s) - start )) s (log: $work/log.txt; input: $work/crash-*):"
        grep -E 'ERROR|invariant broken|runtime error|SUMMARY' "$work/log.txt" | head -5
        status=1
    fi
done
exit $status
