#!/usr/bin/env bash
# Installs everything accel needs on Debian 12 (bookworm) and builds it.
# The only place where packages are installed: CI and newcomers run this.
#
#   scripts/setup.sh            # install + configure + build into ./build
#   ACCEL_SKIP_INSTALL=1 scripts/setup.sh   # configure + build only
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi

if [ "${ACCEL_SKIP_INSTALL:-0}" != 1 ]; then
  "${sudo_cmd[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y --no-install-recommends \
    llvm-22-dev libmlir-22-dev mlir-22-tools clang-22 lld-22 libomp-22-dev \
    libclang-rt-22-dev cmake ninja-build ccache libgtest-dev python3 python3-pip python3-dev \
    libdnnl-dev libopenblas-dev
  # libdnnl-dev and libopenblas-dev are the benchmarks' references only;
  # libclang-rt-22-dev: compiler-rt's builtins (linked into AOT libraries),
  # the sanitizers and libFuzzer.
  # Python: the package's tests (pytest), array dtypes (numpy, ml_dtypes) and
  # nanobind, which builds the accel._core extension (with python3-dev's headers).
  python3 -m pip install --quiet --disable-pip-version-check \
    -r "$root/python/requirements.txt"
fi

cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld -DMLIR_LINK_MLIR_DYLIB=ON \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
cmake --build "$build"
