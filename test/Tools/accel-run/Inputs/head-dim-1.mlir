// Attention with head dimension 1 (and a 1x1x1x1 bf16 one).
func.func @head_dim_1(%q: tensor<1x2x5x1xf32>, %k: tensor<1x2x7x1xf32>, %v: tensor<1x2x7x1xf32>) -> tensor<1x2x5x1xf32> {
  %o = tensor.empty() : tensor<1x2x5x1xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x5x1xf32>, tensor<1x2x7x1xf32>, tensor<1x2x7x1xf32>) outs(%o : tensor<1x2x5x1xf32>) -> tensor<1x2x5x1xf32>
  return %0 : tensor<1x2x5x1xf32>
}
func.func @head_dim_1_bf16(%q: tensor<1x1x1x1xbf16>, %k: tensor<1x1x1x1xbf16>, %v: tensor<1x1x1x1xbf16>) -> tensor<1x1x1x1xf32> {
  %o = tensor.empty() : tensor<1x1x1x1xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x1x1xbf16>, tensor<1x1x1x1xbf16>, tensor<1x1x1x1xbf16>) outs(%o : tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}
