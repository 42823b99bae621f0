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
# pipeline, the CPU integration tests (compile, JIT, compare with the fp64
# oracle), accel-run's tools tests and the fuzz regression tests; that is
# the code that takes untrusted IR. Left to `scripts/sanitize.sh` (the whole
# suite): the GPU and systolic tool tests and the AOT examples, which mostly
# repeat the same passes under other drivers. The fuzz corpora start from
# the repository's tests (a clean clone has none of a developer's corpus).
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

subset=':: (Dialect|Transforms|Conversion|Pipelines|Fuzz|Integration/CPU|Tools/accel-run)/'
echo "== sanitizers: lit subset and unit tests"
"$root/scripts/sanitize.sh" "${build_args[@]}" "$subset"
rc=$?
[ "$rc" -eq 2 ] && exit 2
[ "$rc" -eq 0 ] || status=1

echo "== fuzz: every target, $seconds s each"
# sanitize.sh built every target, so fuzz.sh only seeds and runs.
# A fixed seed: from the fresh corpus the same mutations every run, so a
# finding is the change's and reproducible, not the luck of the draw (long
# random runs: scripts/fuzz.sh without --seed).
"$root/scripts/fuzz.sh" --no-build --seconds "$seconds" --jobs 2 --seed 1 \
  accel-fuzz-parse accel-fuzz-cpu-pipeline accel-fuzz-metadata || status=1
"$root/scripts/fuzz.sh" --no-build --seconds "$seconds" --seed 1 \
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
