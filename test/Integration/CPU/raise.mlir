// What frontends emit runs as it is: the CPU pipeline raises it to
// accel.matmul (accel-raise) and compiles it, while the fp64 oracle evaluates
// the original linalg and tosa semantics, so a raise that changed the meaning
// (a lost accumulate, a wrong transpose) fails here.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s
// The raise did happen:
// RUN: accel-opt %s --accel-raise | FileCheck %s --check-prefix=CHECK-RAISED
// CHECK-RAISED-COUNT-4: accel.matmul
// CHECK-RAISED-NOT: linalg.matmul
// CHECK-RAISED-NOT: tosa.matmul

// CHECK-LABEL: @linalg_matmul_zero_fill
// CHECK: PASS
// CHECK-LABEL: @linalg_matmul_transpose_b_accumulate
// CHECK: PASS
// CHECK-LABEL: @linalg_batch_matmul_bf16
// CHECK: PASS
// CHECK-LABEL: @tosa_matmul_i8
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

func.func @linalg_matmul_zero_fill(%a: tensor<37x19xf32>, %b: tensor<19x41xf32>) -> tensor<37x41xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x41xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<37x41xf32>) -> tensor<37x41xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x19xf32>, tensor<19x41xf32>) outs(%c : tensor<37x41xf32>) -> tensor<37x41xf32>
  return %0 : tensor<37x41xf32>
}

func.func @linalg_matmul_transpose_b_accumulate(%a: tensor<33x65xf32>, %b: tensor<17x65xf32>, %c: tensor<33x17xf32>) -> tensor<33x17xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<33x65xf32>, tensor<17x65xf32>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}

func.func @linalg_batch_matmul_bf16(%a: tensor<3x9x31xbf16>, %b: tensor<3x31x14xbf16>) -> tensor<3x9x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x9x14xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x9x14xf32>) -> tensor<3x9x14xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x9x31xbf16>, tensor<3x31x14xbf16>) outs(%c : tensor<3x9x14xf32>) -> tensor<3x9x14xf32>
  return %0 : tensor<3x9x14xf32>
}

func.func @tosa_matmul_i8(%a: tensor<2x7x129xi8>, %b: tensor<2x129x5xi8>) -> tensor<2x7x5xi32> {
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<2x7x129xi8>, tensor<2x129x5xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x7x5xi32>
  return %0 : tensor<2x7x5xi32>
}
