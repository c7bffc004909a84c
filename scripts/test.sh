#!/usr/bin/env bash
# Builds (scripts/build.sh, which first installs what is missing) and runs
# every test:
#   * the lit suite: dialect, passes, lowering, execution against independent
#     references, xDSL cross-checks, the out-of-tree consumer of the installed
#     CMake package;
#   * the GoogleTest unit tests, through ctest.
# Prints a summary and, as its last line, "N passed, N failed" (", N skipped"
# when some tests were unsupported/skipped). Exits non-zero on any failure.
#   BUILD_DIR  build directory (default build/); LIT  lit executable;
#   LIT_ARGS   extra lit arguments; JOBS  parallel jobs (default: nproc).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

BUILD_DIR="${BUILD_DIR:-build}"
LIT="${LIT:-/usr/lib/llvm-22/bin/lit}"
JOBS="${JOBS:-$(nproc)}"
export BUILD_DIR JOBS

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

start=$(date +%s)
echo "== build ($BUILD_DIR)"
if ! ./scripts/build.sh; then
  echo
  echo "== summary"
  echo "build: FAILED"
  echo "0 passed, 1 failed"
  exit 1
fi
build_s=$(( $(date +%s) - start ))

# --- lit ------------------------------------------------------------------
echo
echo "== lit ($BUILD_DIR/test)"
lit_start=$(date +%s)
# shellcheck disable=SC2086
"$LIT" -sv -j"$JOBS" ${LIT_ARGS:-} "$BUILD_DIR/test" 2>&1 | tee "$logs/lit.txt"
lit_rc=${PIPESTATUS[0]}
lit_s=$(( $(date +%s) - lit_start ))

# Summary lines of lit look like "  Passed: 26 (100.00%)".
lit_count() {
  sed -nE "s/^[[:space:]]*$1[[:space:]]*:[[:space:]]*([0-9]+).*/\1/p" "$logs/lit.txt" | tail -1
}
n() { echo "${1:-0}"; }
lit_pass=$(( $(n "$(lit_count Passed)") + $(n "$(lit_count 'Expectedly Failed')") ))
lit_fail=$(( $(n "$(lit_count Failed)") + $(n "$(lit_count Unresolved)") \
           + $(n "$(lit_count 'Unexpectedly Passed')") + $(n "$(lit_count 'Timed Out')") ))
lit_skip=$(( $(n "$(lit_count Unsupported)") + $(n "$(lit_count Skipped)") ))
lit_failed_names=$(grep -E '^(FAIL|XPASS|UNRESOLVED|TIMEOUT): ' "$logs/lit.txt" | sed -E 's/ \([0-9]+ of [0-9]+\)$//')
lit_note=""
if [ "$lit_rc" -ne 0 ] && [ "$lit_fail" -eq 0 ]; then
  # lit itself failed (bad configuration, crash): count it as a failure.
  lit_fail=1
  lit_note=" (lit exited with status $lit_rc)"
fi

# --- unit tests (GoogleTest through ctest) ----------------------------------
echo
echo "== unit tests (ctest in $BUILD_DIR)"
unit_start=$(date +%s)
(cd "$BUILD_DIR" && ctest --output-on-failure --no-tests=error -j"$JOBS") 2>&1 | tee "$logs/ctest.txt"
ctest_rc=${PIPESTATUS[0]}
unit_s=$(( $(date +%s) - unit_start ))

# "100% tests passed, 0 tests failed out of 10"
read -r unit_fail unit_total < <(sed -nE 's/.*tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/p' "$logs/ctest.txt" | tail -1)
unit_fail=${unit_fail:-0}
unit_total=${unit_total:-0}
unit_skip=$(grep -cE '^[[:space:]]*[0-9]+ - .*\((Skipped|Disabled|Not Run)\)' "$logs/ctest.txt")
unit_pass=$(( unit_total - unit_fail - unit_skip ))
[ "$unit_pass" -ge 0 ] || unit_pass=0
unit_failed_names=$(sed -n '/The following tests FAILED:/,$p' "$logs/ctest.txt" | grep -E '^[[:space:]]+[0-9]+ - ' | sed -E 's/^[[:space:]]+[0-9]+ - /FAIL: /')
unit_note=""
if [ "$ctest_rc" -ne 0 ] && [ "$unit_fail" -eq 0 ]; then
  unit_fail=1
  unit_note=" (ctest exited with status $ctest_rc)"
fi

# --- summary ----------------------------------------------------------------
passed=$(( lit_pass + unit_pass ))
failed=$(( lit_fail + unit_fail ))
skipped=$(( lit_skip + unit_skip ))

echo
echo "== summary"
printf '%-11s %s\n' "build:" "ok (${build_s}s)"
printf '%-11s %s\n' "lit:" "$lit_pass passed, $lit_fail failed, $lit_skip unsupported (${lit_s}s)$lit_note"
printf '%-11s %s\n' "unit tests:" "$unit_pass passed, $unit_fail failed, $unit_skip skipped (${unit_s}s)$unit_note"
if [ -n "$lit_failed_names$unit_failed_names" ]; then
  echo "failed tests:"
  [ -z "$lit_failed_names" ] || echo "$lit_failed_names" | sed 's/^/  /'
  [ -z "$unit_failed_names" ] || echo "$unit_failed_names" | sed 's/^/  /'
fi
echo "total time: $(( $(date +%s) - start ))s"
if [ "$skipped" -gt 0 ]; then
  echo "$passed passed, $failed failed, $skipped skipped"
else
  echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
