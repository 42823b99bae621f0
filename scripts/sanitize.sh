#!/usr/bin/env bash
# Runs the lit suite and the unit tests under AddressSanitizer and
# UndefinedBehaviorSanitizer (docs/reliability.md, "Sanitizers"), in
# ./build-fuzz, the instrumented build scripts/fuzz.sh also uses.
#
#   scripts/sanitize.sh [--no-build] [--no-bench] [--no-unit] [LIT_FILTER]
#
#   --no-build  use what build-fuzz has (no configure/build)
#   --no-bench  configure without accel-bench (ACCEL_BUILD_BENCH=OFF; the
#               Tools/bench/accel-bench-*.test tests are then unsupported):
#               CI's subset runs none of them, and it is the build's slowest
#               file
#   --no-unit   skip the unit tests
#   LIT_FILTER  a regex over test paths for a subset of the lit suite,
#               e.g. 'Tools|Dialect'
#
# Our code is instrumented, with -fno-sanitize-recover=all: the first report
# fails the test. Debian's LLVM/MLIR libraries and the kernels accel-run's
# JIT compiles are not. The Python extension is not built there (an
# instrumented module cannot be loaded into an uninstrumented interpreter),
# so pytest is not part of it; lit tests that cannot run instrumented say
# `UNSUPPORTED: asan`. Building everything from scratch takes about 15
# minutes on 2 cores with the precompiled headers (ACCEL_PCH; 20-40 without;
# ninja's parallelism: CMAKE_BUILD_PARALLEL_LEVEL); lit options
# can be added with LIT_OPTS. Prints the lit and gtest summaries; exits 1
# on any failure, 2 when the build fails.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build-fuzz
do_build=1
bench=ON
run_unit=1
filter=""

# The header comment above, without its '#'s.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; }
for a in "$@"; do
  case "$a" in
    --no-build) do_build=0 ;;
    --no-bench) bench=OFF ;;
    --no-unit) run_unit=0 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "sanitize.sh: unknown option '$a'" >&2; usage >&2; exit 2 ;;
    *)
      if [ -n "$filter" ]; then
        echo "sanitize.sh: one LIT_FILTER only (join regexes with '|')" >&2; exit 2
      fi
      filter=$a ;;
  esac
done

if [ "$do_build" = 1 ]; then
  # shellcheck source=scripts/lib/sanitizer-build.sh
  . "$root/scripts/lib/sanitizer-build.sh"
  accel_configure_sanitizer_build "$root" "$build" sanitize.sh \
    -DACCEL_BUILD_BENCH=$bench || exit 2
  # Everything: tools, unit tests (and their fake drivers), fuzz targets.
  cmake --build "$build" || { echo "sanitize.sh: building $build failed" >&2; exit 2; }
fi
# An accel-bench of an earlier configuration would still count for lit.
[ "$bench" = OFF ] && rm -f "$build/bin/accel-bench"
if [ ! -f "$build/test/lit.site.cfg.py" ] || [ ! -x "$build/bin/accel-opt" ]; then
  echo "sanitize.sh: $build is not built (run without --no-build)" >&2; exit 2
fi
if [ "$run_unit" = 1 ] && [ ! -x "$build/unittests/AccelUnitTests" ]; then
  echo "sanitize.sh: $build/unittests/AccelUnitTests is missing (run without --no-build)" >&2
  exit 2
fi

# Leaks are not looked for: the tools leave process-lifetime registries (and
# MLIR contexts on error paths) to the OS. allow_user_poisoning=0: LLVM's
# BumpPtrAllocator poisons a new slab and unpoisons each allocation from it,
# but only where it is compiled with ASan; MLIR's storage uniquers share
# slabs between our instrumented code (which poisons) and Debian's
# uninstrumented libMLIR (which never unpoisons), so every attribute libMLIR
# puts into a slab we started reads as use-after-poison. Heap, stack and
# global checks are unaffected. Every other report is fatal, with a
# symbolised stack. lit passes these variables through to the tests.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -x /usr/lib/llvm-22/bin/llvm-symbolizer ]; then
  export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
  export UBSAN_SYMBOLIZER_PATH=${UBSAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}
fi

status=0
start=$SECONDS
# shellcheck disable=SC2016 # the quotes are literal; $filter expands
echo "== lit (ASan + UBSan)${filter:+, --filter '$filter'}${LIT_OPTS:+, LIT_OPTS:$LIT_OPTS}"
# build-fuzz/test/lit.site.cfg.py points lit at build-fuzz/bin.
lit_args=(-sv "$build/test")
[ -n "$filter" ] && lit_args+=(--filter "$filter")
/usr/lib/llvm-22/bin/lit "${lit_args[@]}" || status=1

if [ "$run_unit" = 1 ]; then
  echo "== unit tests (ASan + UBSan)"
  unit_out=$(mktemp)
  # Brief output: failures and the summary only.
  "$build/unittests/AccelUnitTests" --gtest_brief=1 2>&1 | tee "$unit_out"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  # A sanitizer abort leaves no gtest summary: say so.
  grep -q '^\[  PASSED  \]' "$unit_out" ||
    echo "sanitize.sh: AccelUnitTests stopped before its summary"
  rm -f "$unit_out"
fi

echo "sanitize.sh: $((SECONDS - start)) s; $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"
