#!/usr/bin/env bash
# Packs the Release binaries and every non-libc shared library they need into .devrun/,
# for running on the lent NVIDIA machine (no Debian -dev packages, no network there).
# Usage: bench/gpu/pack.sh [build-dir] [dest]   (defaults build/release, .devrun)
# With ISC_PACK_TESTS=1 the test executables go to .devrun/tests as well (the GL tests run on
# the NVIDIA driver that way: `for t in .devrun/tests/*; do $t; done`).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
dest=${2:-.devrun}
rm -rf "$dest" && mkdir -p "$dest"/bin "$dest"/lib "$dest"/data
for exe in "$build"/bin/isc "$build"/bench/*/isc_bench_* "$build"/bench/*/isc_glsl_probe; do
  [ -x "$exe" ] && cp "$exe" "$dest"/bin/
done
if [ "${ISC_PACK_TESTS:-0}" = 1 ]; then
  mkdir -p "$dest"/tests
  find "$build"/tests -name 'isc_*' -type f -executable -exec cp {} "$dest"/tests/ \;
fi
cp "$build"/data/bunny.obj "$dest"/data/
strip "$dest"/bin/* "$dest"/tests/* 2>/dev/null || true
for exe in "$dest"/bin/* "$dest"/tests/*; do
  [ -f "$exe" ] || continue
  ldd "$exe" | awk '/=> \//{print $3}' |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
    grep -v -E 'lib(EGL|GL|GLX|OpenGL|GLdispatch)\.so' || true
done | sort -u | while read -r lib; do cp -L "$lib" "$dest"/lib/; done
cp bench/gpu/device_run.sh "$dest"/
du -sh "$dest"
