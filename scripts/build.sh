#!/usr/bin/env bash
# Installs what is missing, configures and builds the project into $BUILD_DIR
# (default build/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR="${BUILD_DIR:-build}"
cmake -G Ninja -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release
ninja -C "$BUILD_DIR" -j"$(nproc)"
