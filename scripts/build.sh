#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh), then configures and builds
# everything (libraries, tools, unit tests) into $BUILD_DIR (default build/)
# with Ninja, in Release mode, through ccache.
#   BUILD_DIR   build directory (relative to the repository root or absolute)
#   BUILD_TYPE  CMake build type (default Release)
#   JOBS        parallel jobs (default: nproc)
#   SKIP_DEPS=1 do not run install-deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${SKIP_DEPS:-0}" != 1 ]; then
  ./scripts/install-deps.sh
fi

BUILD_DIR="${BUILD_DIR:-build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

cmake_args=(-G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE")
if command -v ccache >/dev/null 2>&1; then
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
cmake "${cmake_args[@]}"
ninja -C "$BUILD_DIR" -j"$JOBS"
