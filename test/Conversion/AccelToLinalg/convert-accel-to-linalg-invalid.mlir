// RUN: accel-opt %s --convert-accel-to-linalg -verify-diagnostics

// The reference maps query head h to KV head h floordiv (Hq / Hkv), an affine
// map that needs the group size as a constant.
func.func @dynamic_heads(%q: tensor<1x?x16x8xf32>, %k: tensor<1x?x16x8xf32>,
                         %o: tensor<1x?x16x8xf32>) -> tensor<1x?x16x8xf32> {
  // expected-error @+1 {{the linalg lowering needs static head counts (Hq and Hkv) to map query heads to key/value heads; got 'tensor<1x?x16x8xf32>' and 'tensor<1x?x16x8xf32>'}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x?x16x8xf32>, tensor<1x?x16x8xf32>,
                                         tensor<1x?x16x8xf32>)
                       outs(%o : tensor<1x?x16x8xf32>) -> tensor<1x?x16x8xf32>
  return %0 : tensor<1x?x16x8xf32>
}
