// A tiny f32 matmul for test/Scripts/gate-report.test: the cpu and the
// systolic targets run it, and the cpu target's precision report lowers it.
func.func @mm(%a: tensor<24x40xf32>, %b: tensor<40x12xf32>) -> tensor<24x12xf32> {
  %c = tensor.empty() : tensor<24x12xf32>
  %0 = accel.matmul ins(%a, %b : tensor<24x40xf32>, tensor<40x12xf32>) outs(%c : tensor<24x12xf32>) -> tensor<24x12xf32>
  return %0 : tensor<24x12xf32>
}
