#!/usr/bin/env bash
# Configures and builds one preset (default: release). Usage: scripts/build.sh [preset]
# With ccache installed, compiles go through it (paths relative to the checkout, so a fresh
# clone in another folder hits the same cache): what keeps CI's builds, the plain and the
# sanitize one, inside its time on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
if command -v ccache >/dev/null 2>&1; then
    export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
    export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
    export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(pwd)}
fi
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
