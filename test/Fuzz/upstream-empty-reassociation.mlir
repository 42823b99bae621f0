// RUN: not mlir-opt %s --split-input-file 2>&1 | FileCheck %s
//
// Found by accel-fuzz-cpu-pipeline on 2026-12-01 (docs/reliability.md,
// "Fuzzing"; the input is Inputs/pipeline-upstream-empty-group.bin, where a
// NUL byte, a blank to MLIR's lexer, left `[]`): a crash in MLIR 22 itself,
// not in accel, shown here with upstream mlir-opt (`not` fails on a crash).
// The verifier of tensor.expand_shape (getSymbolLessAffineMaps) reads the
// first expression of each reassociation group, so an empty group is a
// SEGV, in the custom and the generic form alike. (tensor.collapse_shape
// and the memref ops report an empty group; measured.) accel's tools
// refuse such ops before MLIR verifies them (accel::findVerifierHazard,
// include/accel/Support/UpstreamHazards.h;
// test/Tools/accel-opt/upstream-hazards.mlir). Expected to fail until the
// installed MLIR is fixed; an XPASS then means this XFAIL and that check
// can go.
// XFAIL: *

func.func @expand(%a: tensor<6x16x8xf32>) -> tensor<3x2x16x8xf32> {
  // CHECK: upstream-empty-reassociation.mlir:[[@LINE+1]]:{{[0-9]+}}: error:
  %o = tensor.expand_shape %a [[0, 1], [2], []] output_shape [3, 2, 16, 8] : tensor<6x16x8xf32> into tensor<3x2x16x8xf32>
  return %o : tensor<3x2x16x8xf32>
}

// -----

func.func @expand_generic(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  // CHECK: upstream-empty-reassociation.mlir:[[@LINE+1]]:{{[0-9]+}}: error:
  %o = "tensor.expand_shape"(%a) <{reassociation = [[0, 1], []], static_output_shape = array<i64: 3, 2, 16>}> : (tensor<6x16xf32>) -> tensor<3x2x16xf32>
  return %o : tensor<3x2x16xf32>
}
