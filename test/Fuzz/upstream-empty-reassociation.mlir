// RUN: not accel-opt %s --split-input-file 2>&1 | FileCheck %s
//
// Found by accel-fuzz-cpu-pipeline on 2026-12-01 (docs/reliability.md,
// "Fuzzing"; the input is Inputs/pipeline-upstream-empty-group.bin, where a
// NUL byte, a blank to MLIR's lexer, left `[]`): a crash in MLIR 22 itself,
// not in accel. The verifiers of tensor.expand_shape and
// tensor.collapse_shape (getSymbolLessAffineMaps) read the first expression
// of each reassociation group, so an empty group is a SEGV; upstream
// mlir-opt crashes the same way. Expected to fail until the installed MLIR
// is fixed; an XPASS then means this XFAIL and the matching entry of
// accel_fuzz::hitsKnownUpstreamCrash (fuzz/FuzzSupport.cpp) can go.
// XFAIL: *

func.func @expand(%a: tensor<6x16x8xf32>) -> tensor<3x2x16x8xf32> {
  // CHECK: upstream-empty-reassociation.mlir:[[@LINE+1]]:{{[0-9]+}}: error:
  %o = tensor.expand_shape %a [[0, 1], [2], []] output_shape [3, 2, 16, 8] : tensor<6x16x8xf32> into tensor<3x2x16x8xf32>
  return %o : tensor<3x2x16x8xf32>
}

// -----

func.func @collapse(%a: tensor<3x2x16x8xf32>) -> tensor<6x16x8xf32> {
  // CHECK: upstream-empty-reassociation.mlir:[[@LINE+1]]:{{[0-9]+}}: error:
  %o = tensor.collapse_shape %a [[0, 1], [2], []] : tensor<3x2x16x8xf32> into tensor<6x16x8xf32>
  return %o : tensor<6x16x8xf32>
}
