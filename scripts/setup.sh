#!/usr/bin/env bash
# Installs what bullet-isc needs on Debian 12, from Debian's packages only. Idempotent:
# does nothing when everything is there. Needs root (or sudo) for apt-get.
# --extras also installs ffmpeg (videos from `isc demo --frames`: docs/demos.md).
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config python3 python3-glad
  libbullet-dev libglfw3-dev libglm-dev libtinyobjloader-dev libcli11-dev libstb-dev
  googletest libgtest-dev libgmock-dev libbenchmark-dev libfcl-dev
  libegl-dev libgl-dev libegl-mesa0 libgl1-mesa-dri
  libimgui-dev   # the demo window's panel (Dear ImGui 1.86, with its GLFW/OpenGL 3 backends)
  xvfb xauth     # the demo window test runs under xvfb-run
  gnuplot-nox    # bench/plots.sh and bench/detectors/peel_table.py: the plots in docs/
  ccache         # scripts/build.sh: rebuilds (CI's plain and sanitize builds) from the cache
  # The sanitize preset (ASan + UBSan, libFuzzer: docs/robustness.md): clang 16 is the first
  # whose C++23 support takes libstdc++'s std::expected; libomp for its OpenMP.
  clang-16 libclang-rt-16-dev libomp-16-dev llvm   # llvm: llvm-symbolizer for the reports
)
if [ "${1:-}" = "--extras" ]; then
  packages+=(ffmpeg)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(npm)   # fetches the bunny (npm package bunny@1.0.1)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
