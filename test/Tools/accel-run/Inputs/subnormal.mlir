// Matmuls whose exact results are subnormal: each row of A holds one value,
// B is all ones, so C repeats it (f32 below 2^-126, f16 below 2^-14, bf16
// below 2^-126).
func.func @f32(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
func.func @f16(%a: tensor<4x8xf16>, %b: tensor<8x4xf16>) -> tensor<4x4xf16> {
  %c = tensor.empty() : tensor<4x4xf16>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf16>, tensor<8x4xf16>) outs(%c : tensor<4x4xf16>) -> tensor<4x4xf16>
  return %0 : tensor<4x4xf16>
}
func.func @bf16(%a: tensor<4x8xbf16>, %b: tensor<8x4xbf16>) -> tensor<4x4xbf16> {
  %c = tensor.empty() : tensor<4x4xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x4xbf16>) outs(%c : tensor<4x4xbf16>) -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}
