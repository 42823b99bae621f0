// Two matmuls for nvptx-record-replay.test: i8 with B as [N, K] (i32 sums,
// bit-exact) and bf16 with B as [K, N] (f32, the matmul gate).
func.func @i8_tb(%a: tensor<40x64xi8>, %b: tensor<24x64xi8>) -> tensor<40x24xi32> {
  %c = tensor.empty() : tensor<40x24xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<40x64xi8>, tensor<24x64xi8>) outs(%c : tensor<40x24xi32>) -> tensor<40x24xi32>
  return %0 : tensor<40x24xi32>
}

func.func @bf16_kn(%a: tensor<33x48xbf16>, %b: tensor<48x20xbf16>) -> tensor<33x20xf32> {
  %c = tensor.empty() : tensor<33x20xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x48xbf16>, tensor<48x20xbf16>) outs(%c : tensor<33x20xf32>) -> tensor<33x20xf32>
  return %0 : tensor<33x20xf32>
}
