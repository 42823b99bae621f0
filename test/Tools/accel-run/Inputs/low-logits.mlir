// Attention whose valid logits all sit near -6e4, below the finite sentinels
// (-5e4) some kernels use for masked keys: Q = K = 1 (from .npy), D = 8,
// scale -7500, so every logit is -60000 and each row averages the V rows
// it keeps.
func.func @bool_mask(%q: tensor<1x2x16x8xf16>, %k: tensor<1x2x24x8xf16>, %v: tensor<1x2x24x8xf16>, %m: tensor<1x2x16x24xi1>) -> tensor<1x2x16x8xf32> {
  %o = tensor.empty() : tensor<1x2x16x8xf32>
  %0 = accel.attention scale(-7500.0) ins(%q, %k, %v : tensor<1x2x16x8xf16>, tensor<1x2x24x8xf16>, tensor<1x2x24x8xf16>) mask(%m : tensor<1x2x16x24xi1>) outs(%o : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %0 : tensor<1x2x16x8xf32>
}
func.func @causal(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x16x8xf32> {
  %o = tensor.empty() : tensor<1x2x16x8xf32>
  %0 = accel.attention causal scale(-7500.0) ins(%q, %k, %v : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>) outs(%o : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %0 : tensor<1x2x16x8xf32>
}
