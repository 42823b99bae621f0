// RUN: accel-opt %s --convert-accel-to-linalg -split-input-file -verify-diagnostics

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

// -----

// linalg.softmax that accel-raise left is decomposed here; upstream's
// decomposition creates tensors, so a buffer form cannot be lowered.
func.func @softmax_on_buffers(%x: memref<4x8xf64>, %y: memref<4x8xf64>) {
  // expected-error @+1 {{'linalg.softmax' op on buffers cannot be lowered (upstream's decomposition builds tensors); give it tensors}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf64>) outs(%y : memref<4x8xf64>)
  return
}
