#!/usr/bin/env bash
# Runs accel-bench with the references pinned (anchors-performance.md §3.1):
# this machine's environment sets OPENBLAS_CORETYPE=Haswell and
# OPENBLAS_L2_SIZE, which hold OpenBLAS to AVX2 kernels; they are unset here,
# in this command only (never in tests or CI). OMP_WAIT_POLICY=passive keeps
# the OpenMP runtimes from spinning against each other on 2 cores.
#
#   bench/run.sh [--bench-threads=1|2] [--mode=gemm|attention|precision|all]
#                [--quick]
#   bench/run.sh --mode=table [--quick]   # issue 10's table (bench/README.md)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}
threads=1
for a in "$@"; do
  case "$a" in --bench-threads=*) threads=${a#*=} ;; esac
done
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  OMP_WAIT_POLICY=passive OMP_NUM_THREADS="$threads" \
  "$build/bin/accel-bench" "$@"
