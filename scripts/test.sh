#!/usr/bin/env bash
# Installs, builds and runs every test: the lit suite (dialect, passes,
# lowering, execution against independent references, the out-of-tree
# consumer) and the GoogleTest unit tests. Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build}"
./scripts/build.sh || { echo "0 passed, 1 failed"; exit 1; }

passed=0 failed=0 skipped=0

echo "== lit"
lit_out=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$BUILD_DIR/test" 2>&1 | tee "$lit_out"
lit_rc=${PIPESTATUS[0]}
count() { grep -E "^\s+$1: " "$lit_out" | awk '{print $2}' | head -1; }
p=$(count Passed); f=$(count Failed); u=$(count Unsupported); x=$(count Unresolved)
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0} + ${x:-0})); skipped=$((skipped + ${u:-0}))
if [ "$lit_rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && [ "${x:-0}" -eq 0 ]; then failed=$((failed + 1)); fi

echo "== unit tests"
for t in "$BUILD_DIR"/unittests/*Tests; do
  [ -x "$t" ] || continue
  out=$(mktemp)
  "$t" 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  p=$(grep -E "^\[  PASSED  \]" "$out" | awk '{print $4}')
  f=$(grep -E "^\[  FAILED  \] [0-9]+ test" "$out" | awk '{print $4}')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  if [ "$rc" -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi
done

echo
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
