#!/usr/bin/env bash
# Runs accel-bench with the references pinned (anchors-performance.md §3.1):
# this machine's environment sets OPENBLAS_CORETYPE=Haswell and
# OPENBLAS_L2_SIZE, which hold OpenBLAS to AVX2 kernels; they are unset here,
# in this command only (never in tests or CI). KMP_BLOCKTIME=1 lets LLVM's
# libomp workers (accel's JIT code) spin 1 ms after a parallel region instead
# of its default 200 ms, and libgomp's default spin is a few ms: multi-
# threaded samples are preceded by a 20 ms idle gap (--cooldown-ms), so one
# runtime's workers no longer spin while another's sample runs, and within a
# sample back-to-back calls find their workers awake. (OMP_WAIT_POLICY=passive,
# used before, put a ~46 µs futex wake-up on every call of either runtime.)
#
#   bench/run.sh [--bench-threads=1|2] [--mode=gemm|attention|precision|all]
#                [--quick]
#   bench/run.sh --mode=table [--quick]   # issue 10's table (bench/README.md)
#   bench/run.sh --mode=readme [--quick] [--log-dir=DIR]
#       # the README's "Measured figures" rows: runs --mode=table,
#       # --mode=attention --samples=3 and bench/systolic.py, prints the rows
#       # with the commit and the machine (bench/readme_figures.py)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}
threads=1
for a in "$@"; do
  case "$a" in
    --bench-threads=*) threads=${a#*=} ;;
    --mode=readme) exec python3 "$root/bench/readme_figures.py" "$@" ;;
  esac
done
exec env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE \
  KMP_BLOCKTIME=1 OMP_NUM_THREADS="$threads" \
  "$build/bin/accel-bench" "$@"
