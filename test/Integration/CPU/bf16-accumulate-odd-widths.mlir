// Matmuls with a bf16 C whose N no vector width divides (17, 33, 5),
// batched, transposed, accumulating. Found by scripts/differential-sweep.py:
// when a bf16 C accumulated in bf16, the vectorised contraction made bf16
// FMAs, phis and shuffles of 17 or 33 lanes, and x86's code generator
// aborted ("Do not know how to soft promote this operator's operand!").
// convert-accel-to-linalg now accumulates a 16-bit float C in f32 and
// rounds it once (accel-to-linalg.mlir checks the IR).
// RUN: accel-run %s | FileCheck %s
// RUN: accel-run %s --dist=normal --seed=7 | FileCheck %s
// CHECK: accel-run: 4 of 4 functions passed

func.func @batched_n17(%a: tensor<3x16x2xbf16>, %b: tensor<3x2x17xbf16>) -> tensor<3x16x17xbf16> {
  %c = tensor.empty() : tensor<3x16x17xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<3x16x2xbf16>, tensor<3x2x17xbf16>) outs(%c : tensor<3x16x17xbf16>) -> tensor<3x16x17xbf16>
  return %0 : tensor<3x16x17xbf16>
}

func.func @n33_k64(%a: tensor<20x64xbf16>, %b: tensor<64x33xbf16>) -> tensor<20x33xbf16> {
  %c = tensor.empty() : tensor<20x33xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<20x64xbf16>, tensor<64x33xbf16>) outs(%c : tensor<20x33xbf16>) -> tensor<20x33xbf16>
  return %0 : tensor<20x33xbf16>
}

func.func @tb_n17_acc(%a: tensor<8x16xbf16>, %b: tensor<17x16xbf16>, %c: tensor<8x17xbf16>) -> tensor<8x17xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<8x16xbf16>, tensor<17x16xbf16>) outs(%c : tensor<8x17xbf16>) -> tensor<8x17xbf16>
  return %0 : tensor<8x17xbf16>
}

func.func @n5(%a: tensor<7x3xbf16>, %b: tensor<3x5xbf16>) -> tensor<7x5xbf16> {
  %c = tensor.empty() : tensor<7x5xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<7x3xbf16>, tensor<3x5xbf16>) outs(%c : tensor<7x5xbf16>) -> tensor<7x5xbf16>
  return %0 : tensor<7x5xbf16>
}
