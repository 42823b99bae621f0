# shellcheck shell=bash
# Sourced by scripts/fuzz.sh and scripts/sanitize.sh: configures the
# instrumented build both use (./build-fuzz), so that the two never fight
# over its CMake cache.
#
#   accel_configure_sanitizer_build ROOT BUILD NAME [CMAKE_ARG...]
#
# NAME prefixes the error message (the calling script's name); CMAKE_ARGs
# are added to the configure command. Returns 0, or
# prints BUILD/configure.log and returns 2 when configuring fails.
#
# Our libraries and tools are instrumented for coverage (fuzzer-no-link, so
# libFuzzer sees them) and checked by ASan and UBSan; the first report is
# fatal (-fno-sanitize-recover=all). LLVM and MLIR themselves are Debian's
# prebuilt, uninstrumented libraries, and so are the kernels accel-run's JIT
# compiles. RelWithDebInfo without -DNDEBUG: assertions in our code and in the
# LLVM/MLIR headers it inlines stay on (the ABI does not change:
# LLVM_ENABLE_ABI_BREAKING_CHECKS is fixed at 0 by the installed headers),
# and line tables give symbolised stacks. The unit tests are configured too
# (scripts/sanitize.sh runs them; fuzz.sh builds only its targets). The Python
# extension is not: an instrumented module cannot be loaded into an
# uninstrumented interpreter.
accel_configure_sanitizer_build() {
  local root=$1 build=$2 name=$3
  shift 3
  local sanitize="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  mkdir -p "$build"
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only" \
    -DCMAKE_C_FLAGS="$sanitize" -DCMAKE_CXX_FLAGS="$sanitize" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld -DMLIR_LINK_MLIR_DYLIB=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DACCEL_BUILD_FUZZERS=ON -DACCEL_BUILD_UNITTESTS=ON \
    -DACCEL_BUILD_PYTHON=OFF "$@" >"$build/configure.log" 2>&1 && return 0
  cat "$build/configure.log"
  echo "$name: configuring $build failed" >&2
  return 2
}
