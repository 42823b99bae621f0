// Attention with no query heads (Hq = 0): valid IR (0 is a multiple of Hkv),
// with an empty output.
func.func @no_query_heads(%q: tensor<1x0x16x8xf32>, %k: tensor<1x2x16x8xf32>, %o: tensor<1x0x16x8xf32>) -> tensor<1x0x16x8xf32> {
  %0 = accel.attention ins(%q, %k, %k : tensor<1x0x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) outs(%o : tensor<1x0x16x8xf32>) -> tensor<1x0x16x8xf32>
  return %0 : tensor<1x0x16x8xf32>
}
