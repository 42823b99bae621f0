#!/usr/bin/env bash
# Regenerates the dialect and pass reference in docs/generated/ from ODS.
# test/Docs/generated-docs.test fails when the committed copy is stale.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${ACCEL_BUILD_DIR:-$root/build}
cmake --build "$build" --target accel-doc
cp "$build/docs/Dialects/AccelDialect.md" "$root/docs/generated/AccelDialect.md"
cp "$build/docs/Dialects/SystolicDialect.md" "$root/docs/generated/SystolicDialect.md"
cp "$build/docs/AccelPasses.md" "$root/docs/generated/AccelPasses.md"
cp "$build/docs/AccelConversionPasses.md" "$root/docs/generated/AccelConversionPasses.md"
