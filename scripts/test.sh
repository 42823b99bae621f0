#!/usr/bin/env bash
# Runs every test: the lit suite (check-accel), the unit tests and the Python
# tests. Exits non-zero if any of them fails. Expects scripts/setup.sh to
# have built ./build (or $ACCEL_BUILD_DIR).
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}
status=0
passed=0
failed=0

cmake --build "$build" || exit 1

echo "== lit (check-accel)"
lit_out=$(mktemp)
/usr/lib/llvm-22/bin/lit -v "$build/test" | tee "$lit_out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$lit_out" | tail -1)
f=$(grep -E '^ *(Failed|Unresolved|Timed Out|Unexpectedly Passed) *:' "$lit_out" | sed -E 's/.*: *([0-9]+).*/\1/' | awk '{s += $1} END {print s + 0}')
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
rm -f "$lit_out"

echo "== unit tests"
unit_out=$(mktemp)
"$build/unittests/AccelUnitTests" | tee "$unit_out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$unit_out")
f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$unit_out")
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
rm -f "$unit_out"

echo "== python tests"
# setup.sh installs nanobind and python3-dev: the accel._core extension must
# have been built, or test_core.py would only be skipped.
if ! ls "$build"/python/accel/_core*.so >/dev/null 2>&1; then
  echo "test.sh: $build/python/accel/_core*.so is missing (no nanobind or Python headers at configure time?)"
  failed=$((failed + 1)); status=1
fi
py_out=$(mktemp)
ACCEL_OPT="$build/bin/accel-opt" PYTHONPATH="$root/python" \
  python3 -m pytest -q "$root/python/tests" | tee "$py_out"
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
p=$(grep -Eo '[0-9]+ passed' "$py_out" | tail -1 | cut -d' ' -f1)
f=$(grep -Eo '[0-9]+ failed' "$py_out" | tail -1 | cut -d' ' -f1)
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
rm -f "$py_out"

echo "== diagnostics coverage"
if python3 "$root/scripts/check-diagnostics.py"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); status=1
fi

echo "== differential sweep (a short one; scripts/differential-sweep.py)"
if ACCEL_BUILD_DIR="$build" python3 "$root/scripts/differential-sweep.py" \
    --cases 120 --seed 1 --jobs 2; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); status=1
fi

if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "$passed passed, $failed failed"
exit "$status"
