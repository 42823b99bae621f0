// RUN: not mlir-opt %s --split-input-file 2>&1 | FileCheck %s
//
// Found by accel-fuzz-parse and accel-fuzz-cpu-pipeline (docs/reliability.md,
// "Fuzzing"): a crash in MLIR 22 itself, not in accel, shown here with
// upstream mlir-opt (`not` fails on a crash). The custom parsers of
// linalg.transpose, linalg.broadcast and linalg.reduce
// (parseDenseI64ArrayAttr in LinalgOps.cpp) keep the null attribute that
// DenseI64ArrayAttr::parse returns for a malformed `permutation = [...]` or
// `dimensions = [...]` and crash in NamedAttrList::set after reporting the
// error. accel's tools refuse such lists before MLIR's parser sees them
// (accel::findMalformedLinalgList, include/accel/Support/UpstreamHazards.h;
// test/Tools/accel-opt/upstream-hazards.mlir). Expected to fail until the
// installed MLIR is fixed; an XPASS then means this XFAIL and that check
// can go.
// XFAIL: *

func.func @transpose(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // CHECK: upstream-linalg-dense-i64-list.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected ']'
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0
  return %t : tensor<3x2xf32>
}

// -----

func.func @broadcast(%a: tensor<3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: upstream-linalg-dense-i64-list.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '['
  %t = linalg.broadcast ins(%a : tensor<3xf32>) outs(%b : tensor<2x3xf32>) dimensions = 0
  return %t : tensor<2x3xf32>
}

// -----

// CHECK: upstream-linalg-dense-i64-list.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected '['
linalg.reduce dimensions = {
