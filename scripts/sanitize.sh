#!/usr/bin/env bash
# The sanitizer job: builds the sanitize preset (clang 16, ASan + UBSan, any report fatal)
# and runs the test suite on it (llvmpipe where there is no GPU). LeakSanitizer reports leaks
# at exit; the only ones allowed are the GL driver's, listed by name in
# tests/sanitizers/lsan-drivers.supp. Some GL-heavy tests are left out here (they run in the
# plain suite): each is named with the reason in SLOW below. docs/robustness.md.
#   bash scripts/sanitize.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh sanitize
here=$(pwd)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan-drivers.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Left out under the sanitizers, for time only (2 cores: ASan makes llvmpipe's piles 3-10x
# slower); the plain suite runs them all.
SLOW='Pile|Particle.*Pour|Accuracy.*Sweep'
ctest --test-dir build/sanitize -j2 --timeout 900 --output-on-failure -E "$SLOW" "$@"
