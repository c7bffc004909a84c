#!/usr/bin/env bash
# The main job on a bundled example: install what is missing, build, then
# parse, shape-infer, lower and run a time-loop stencil on the CPU and compare
# it bit for bit with an independent numpy reference.
#
#   ./scripts/run-example.sh [examples/NAME.mlir] [--openmp]
set -euo pipefail
cd "$(dirname "$0")/.."
example="${1:-examples/heat2d.mlir}"
shift || true

./scripts/build.sh >/tmp/stencil-build.log 2>&1 || {
  tail -50 /tmp/stencil-build.log
  echo "build failed (full log: /tmp/stencil-build.log)" >&2
  exit 1
}
BUILD_DIR="${BUILD_DIR:-build}"
export STENCIL_BUILD_DIR="$PWD/$BUILD_DIR"
export PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}"

echo "== $example: lowered loop nest (first lines)"
lowered=$(mktemp)
"$BUILD_DIR/bin/stencil-opt" "$example" --stencil-shape-inference \
  --convert-stencil-to-loops --canonicalize > "$lowered"
head -n 25 "$lowered"
rm -f "$lowered"
echo "== run on the CPU and compare with the numpy reference"
exec /usr/bin/python3 -m stencil check "$example" "$@"
