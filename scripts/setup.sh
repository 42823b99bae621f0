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
    libclang-rt-22-dev cmake ninja-build ccache libgtest-dev python3 python3-pip python3-dev python3-venv \
    libdnnl-dev libopenblas-dev libmpich-dev mpich
  # libmpich-dev and mpich: sharded modules run as MPI processes (MPICH, the
  # ABI upstream's mpi lowering targets; accel-run --ranks, docs/distributed.md).
  # libdnnl-dev and libopenblas-dev are the benchmarks' references only;
  # libclang-rt-22-dev: compiler-rt's builtins (linked into AOT libraries),
  # the sanitizers and libFuzzer.
  # Python: the package's tests (pytest), array dtypes (numpy, ml_dtypes) and
  # nanobind, which builds the accel._core extension (with python3-dev's headers).
  python3 -m pip install --quiet --disable-pip-version-check \
    -r "$root/python/requirements.txt"
  # SCALE-Sim v3, the reference the systolic simulator's SCALE-Sim mode is
  # checked against (test/Integration/Systolic/scalesim-sweep.test; lit's
  # `scalesim` feature), in a virtual environment of its own: scalesim 3.0.0
  # fails on numpy 2.4 ("only 0-dimensional arrays can be converted to
  # Python scalars" in its memory model) and pulls in numba, which caps numpy
  # too, so it must not share the project's packages. Skipped when there.
  scalesim_venv=$build/scalesim-venv
  if ! "$scalesim_venv/bin/python" -c 'import importlib.metadata as m, sys, scalesim.scale_sim; sys.exit(m.version("scalesim") != "3.0.0")' 2>/dev/null; then
    python3 -m venv "$scalesim_venv"
    "$scalesim_venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      "scalesim==3.0.0" "numpy<2.4"
  fi
fi

cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
  -DLLVM_USE_LINKER=lld -DMLIR_LINK_MLIR_DYLIB=ON \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
cmake --build "$build"
