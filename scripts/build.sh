#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh), then configures and builds
# everything (libraries, tools, unit tests) into $BUILD_DIR (default build/)
# with Ninja, in Release mode, through ccache.
#   BUILD_DIR   build directory (relative to the repository root or absolute)
#   BUILD_TYPE  CMake build type (default Release)
#   JOBS        parallel jobs (default: nproc)
#   SKIP_DEPS=1 do not run install-deps.sh
#   STENCIL_ISL isl to build with: `imath` (default: isl 0.25 built by
#               scripts/build-isl.sh into $BUILD_DIR/isl, about twice as fast
#               as GMP; falls back to `system` with a warning when that
#               fails) or `system` (Debian's libisl-dev, GMP)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${SKIP_DEPS:-0}" != 1 ]; then
  ./scripts/install-deps.sh
fi

BUILD_DIR="${BUILD_DIR:-build}"
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

cmake_args=(-G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE")
case "${STENCIL_ISL:-imath}" in
  imath)
    if JOBS="$JOBS" ./scripts/build-isl.sh "$BUILD_DIR/isl"; then
      cmake_args+=(-DSTENCIL_ISL_PREFIX="$(cd "$BUILD_DIR/isl" && pwd)")
    else
      echo "build: warning: building isl with imath failed; using the system's libisl (GMP)" >&2
      cmake_args+=(-DSTENCIL_ISL_PREFIX=)
    fi
    ;;
  system) cmake_args+=(-DSTENCIL_ISL_PREFIX=) ;;
  *) echo "build: error: STENCIL_ISL must be imath or system" >&2; exit 1 ;;
esac
if command -v ccache >/dev/null 2>&1; then
  cmake_args+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # Paths below the checkout become relative in ccache's hashes, so a fresh
  # clone elsewhere reuses what another checkout compiled.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
fi
cmake "${cmake_args[@]}"
ninja -C "$BUILD_DIR" -j"$JOBS"
