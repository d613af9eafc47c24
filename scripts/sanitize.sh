#!/usr/bin/env bash
# The sanitizer job: builds the sanitize preset (clang 16, ASan + UBSan, any report fatal)
# and runs the test suite on it (llvmpipe where there is no GPU). LeakSanitizer reports leaks
# at exit; the only ones allowed are the GL driver's, listed by name in
# tests/sanitizers/lsan-drivers.supp. Some GL-heavy tests are left out here (they run in the
# plain suite): each is named with the reason in SKIP below. docs/robustness.md.
#   bash scripts/sanitize.sh [extra ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh sanitize
here=$(pwd)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
export LSAN_OPTIONS=suppressions=$here/tests/sanitizers/lsan-drivers.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
command -v llvm-symbolizer >/dev/null && export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
# Mesa's DRI driver is dlopen'ed by EGL and unloaded again when the last display goes; what
# its globals still point at then reads as leaked, from frames LeakSanitizer can no longer
# name ("<unknown module>"), so no suppression can match them. Preloading the driver keeps
# it mapped to the end: its globals stay roots and its frames keep their names. (Ours are
# never unloaded: the library is linked statically into every test.)
dri=$(ls /usr/lib/*/dri/swrast_dri.so 2>/dev/null | head -1 || true)
[ -n "$dri" ] && export LD_PRELOAD=$dri
# Left out under the sanitizers (the plain suite runs them all): the bunny piles, the particle
# pour and the 10^6-triangle meshes, for time only (ASan makes llvmpipe's piles several times
# slower on 2 cores); and the package test, which builds a plain consumer against the
# installed libraries (sanitized static libraries need the sanitizer runtime to link).
SKIP='Pile|Pour|Million|^package\.'
ctest --test-dir build/sanitize -j2 --timeout 900 --output-on-failure -E "$SKIP" "$@"
