// Edges of the oracle's gates, on kernels that are correct:
// - i8 inputs accumulated in f32 (linalg allows it): not "bit-exact i32",
//   the float bound applies;
// - a result beyond f16's range is, correctly, -inf or +inf;
// - bf16 accumulation past K·u = 1/2 keeps a finite (probabilistic) gate;
// - attention with large |V| and small logits: the gate grows with |V|.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// CHECK-LABEL: @i8_into_f32
// CHECK: PASS
// CHECK-LABEL: @overflow_to_inf
// CHECK: PASS
// CHECK-LABEL: @bf16_long_k
// CHECK: worst err/gate {{0\.[0-9]+}} -> PASS
// CHECK-LABEL: @attention_large_v
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

func.func @i8_into_f32(%a: tensor<3x4096xi8>, %b: tensor<4096x5xi8>, %c: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<3x4096xi8>, tensor<4096x5xi8>) outs(%c : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// 127 * 127 * 512 = 8.3e6, far past f16's 65504: every element is +inf.
func.func @overflow_to_inf() -> tensor<4x6xf16> {
  %a512 = arith.constant dense<127> : tensor<4x512xi8>
  %b = arith.constant dense<127> : tensor<512x6xi8>
  %sa = arith.constant 1.0 : f32
  %sb = arith.constant 1.0 : f32
  %c = tensor.empty() : tensor<4x6xf16>
  %0 = accel.matmul ins(%a512, %b : tensor<4x512xi8>, tensor<512x6xi8>) scales(%sa, %sb) outs(%c : tensor<4x6xf16>) -> tensor<4x6xf16>
  return %0 : tensor<4x6xf16>
}

func.func @bf16_long_k(%a: tensor<4x300xbf16>, %b: tensor<300x5xbf16>) -> tensor<4x5xbf16> {
  %c = tensor.empty() : tensor<4x5xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<4x300xbf16>, tensor<300x5xbf16>) outs(%c : tensor<4x5xbf16>) -> tensor<4x5xbf16>
  return %0 : tensor<4x5xbf16>
}

// V around 1000 (an additive constant), tiny logits.
func.func @attention_large_v(%q: tensor<1x1x8x16xf32>, %k: tensor<1x1x64x16xf32>, %v: tensor<1x1x64x16xf32>) -> tensor<1x1x8x16xf32> {
  %o = tensor.empty() : tensor<1x1x8x16xf32>
  %big = arith.constant dense<1000.0> : tensor<1x1x64x16xf32>
  %vb = arith.addf %v, %big : tensor<1x1x64x16xf32>
  %r = accel.attention scale(0.001) ins(%q, %k, %vb : tensor<1x1x8x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32>) outs(%o : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return %r : tensor<1x1x8x16xf32>
}
