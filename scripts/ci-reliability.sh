#!/usr/bin/env bash
# CI's reliability pass (docs/reliability.md, "In CI"): after the README's
# test command, .ci/run builds ./build-fuzz (our code under ASan + UBSan,
# -fno-sanitize-recover=all, as scripts/sanitize.sh and scripts/fuzz.sh do),
# runs a representative subset of the lit suite and all the unit tests under
# the sanitizers, then a short fuzz pass of every libFuzzer target.
#
#   scripts/ci-reliability.sh [--no-build] [--seconds N]
#
#   --no-build   use what build-fuzz has
#   --seconds N  fuzz each target for N seconds (default 45)
#
# The lit subset: the dialect verifiers, every pass and conversion, the CPU
# pipeline, a set of CPU integration tests that reaches every CPU pass
# family (compile, JIT, compare with the fp64 oracle), accel-run's tools
# tests and the fuzz regression tests; that is the code that takes
# untrusted IR. Left to `scripts/sanitize.sh` (the whole suite): the other
# CPU integration tests (more shapes through the same passes), the GPU
# emulator and ptxas tests, the GPU and systolic tool tests and the AOT
# examples, which mostly repeat the same passes under other drivers. The
# subset is sized to keep CI's whole run under an hour on 2 cores. The fuzz
# corpora start from the repository's tests (a clean clone has none of a
# developer's corpus).
# Exits 1 on any failure (a sanitizer report, a failed test, a fuzz crash),
# 2 when the build fails.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=45
build_args=()

while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build_args=(--no-build); shift ;;
    --seconds) seconds=${2:-}; shift 2 ;;
    --seconds=*) seconds=${1#*=}; shift ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "ci-reliability.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

start=$SECONDS
status=0

# The CPU integration tests whose JIT work is small (under ~10 s each
# uninstrumented on 2 cores) and that together reach every CPU pass family:
# matmul (dot and row-dot kernels, one-row blocks, fnuz, i8, bf16),
# attention (fused and on linalg), softmax, dequantization, sharding,
# precision lowering, lowering configs and the oracle's edges. The others
# spend their time in LLVM's code generation (not instrumented, but slowed
# by ASan's allocator) on more shapes of the same passes.
cpu='fast-exp2|linalg-reference|oracle-edges|rope|softmax|softmax-linalg'
cpu+='|raise|tf32|lower-precision-overflow|f8-casts|special-values'
cpu+='|bf16-accumulate-odd-widths|bf16-dot|i8-dot|row-dot|matmul-precision'
cpu+='|matmul-fnuz|matmul-one-row-block|dequant-exact|dequant-matmul'
cpu+='|sharded|sharded-2x2|fuse-attention|fuse-attention-linalg'
cpu+='|lowering-config'
subset=":: (Dialect|Transforms|Conversion|Pipelines|Fuzz|Tools/accel-run)/"
subset+="|:: Integration/CPU/($cpu)\\.(mlir|test)\$"
# The GPU conversion's emulate* and ptxas* tests spend their time in a
# numpy emulator and in ptxas; the conversion patterns they go through are
# those the convert-*, pipeline-* and invalid-* tests kept here run.
export LIT_OPTS="${LIT_OPTS:-} --filter-out=':: Conversion/AccelToGPU/(emulate|ptxas)[-.]'"
echo "== sanitizers: lit subset and unit tests"
"$root/scripts/sanitize.sh" "${build_args[@]}" --no-bench "$subset"
rc=$?
[ "$rc" -eq 2 ] && exit 2
[ "$rc" -eq 0 ] || status=1

echo "== fuzz: every target, $seconds s each"
# sanitize.sh built every target, so fuzz.sh only seeds and runs.
# A fixed seed: from the fresh corpus the same mutations every run, so a
# finding is the change's and reproducible, not the luck of the draw (long
# random runs: scripts/fuzz.sh without --seed).
"$root/scripts/fuzz.sh" --no-build --seconds "$seconds" --jobs 2 --seed 1 \
  accel-fuzz-parse accel-fuzz-cpu-pipeline accel-fuzz-metadata \
  accel-fuzz-structured || status=1

# Past findings of the structured target and the pipeline target's harness,
# replayed (the other targets' reproducers are lit tests).
echo "== fuzz: replaying test/Fuzz/Inputs/structured-*.bin and pipeline-*.bin"
"$root/build-fuzz/bin/accel-fuzz-structured" \
  "$root"/test/Fuzz/Inputs/structured-*.bin >"$root/build-fuzz/replay.log" 2>&1 ||
  { tail -30 "$root/build-fuzz/replay.log"; status=1; }
"$root/build-fuzz/bin/accel-fuzz-cpu-pipeline" \
  "$root"/test/Fuzz/Inputs/pipeline-*.bin >>"$root/build-fuzz/replay.log" 2>&1 ||
  { tail -30 "$root/build-fuzz/replay.log"; status=1; }

echo "ci-reliability.sh: $((SECONDS - start)) s; $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"
