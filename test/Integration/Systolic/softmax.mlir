// accel.softmax over the last dimension on the systolic target's vector
// unit (SystolicSoftmax.h) against the fp64 oracle: rows shorter and longer
// than the array's width (a row's strips side by side, the last one
// partial), a 3-D input, bf16 in and out, a softmax of a matmul's scores,
// and rows of -inf (zeros, never NaN; without the sub's inf_is_zero they
// are NaN and fail; a row sum that does not accumulate across strips fails
// every row longer than the array's width at err/gate > 1e4). Three
// machines: the default, a
// 2 KiB accumulator (32 rows: one row of 300 elements a block, one set),
// 8x8 with 4 lanes.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=2" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 5 of 5 functions passed

func.func @rows(%x: tensor<37x40xf32>) -> tensor<37x40xf32> {
  %e = tensor.empty() : tensor<37x40xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<37x40xf32>) outs(%e : tensor<37x40xf32>) -> tensor<37x40xf32>
  return %0 : tensor<37x40xf32>
}

func.func @long_rows_3d(%x: tensor<2x3x300xf32>) -> tensor<2x3x300xf32> {
  %e = tensor.empty() : tensor<2x3x300xf32>
  %0 = accel.softmax dimension(2) ins(%x : tensor<2x3x300xf32>) outs(%e : tensor<2x3x300xf32>) -> tensor<2x3x300xf32>
  return %0 : tensor<2x3x300xf32>
}

func.func @bf16(%x: tensor<9x7xbf16>) -> tensor<9x7xbf16> {
  %e = tensor.empty() : tensor<9x7xbf16>
  %0 = accel.softmax dimension(1) ins(%x : tensor<9x7xbf16>) outs(%e : tensor<9x7xbf16>) -> tensor<9x7xbf16>
  return %0 : tensor<9x7xbf16>
}

// Scores of a matmul, then their softmax (an f32 machine of bf16 inputs).
func.func @scores(%q: tensor<24x32xbf16>, %k: tensor<32x50xbf16>) -> tensor<24x50xf32> {
  %c = tensor.empty() : tensor<24x50xf32>
  %s = accel.matmul ins(%q, %k : tensor<24x32xbf16>, tensor<32x50xbf16>) outs(%c : tensor<24x50xf32>) -> tensor<24x50xf32>
  %e = tensor.empty() : tensor<24x50xf32>
  %0 = accel.softmax dimension(1) ins(%s : tensor<24x50xf32>) outs(%e : tensor<24x50xf32>) -> tensor<24x50xf32>
  return %0 : tensor<24x50xf32>
}

// Rows of -inf (fully masked): zeros.
func.func @masked() -> tensor<4x20xf32> {
  %e = tensor.empty() : tensor<4x20xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %x = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x20xf32>) -> tensor<4x20xf32>
  %e2 = tensor.empty() : tensor<4x20xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x20xf32>) outs(%e2 : tensor<4x20xf32>) -> tensor<4x20xf32>
  return %0 : tensor<4x20xf32>
}
