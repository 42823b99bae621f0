// An accumulating f16 matmul with B as [K, N], for nvptx.test's wgmma case.
func.func @f16_kn_acc_batched(%a: tensor<2x70x48xf16>, %b: tensor<2x48x136xf16>, %c: tensor<2x70x136xf32>) -> tensor<2x70x136xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x70x48xf16>, tensor<2x48x136xf16>) outs(%c : tensor<2x70x136xf32>) -> tensor<2x70x136xf32>
  return %0 : tensor<2x70x136xf32>
}
