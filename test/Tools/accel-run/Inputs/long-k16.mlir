// 16-bit float matmuls with a long reduction (K = 4096) whose exact result,
// 4096 · 3 = 12288, every format can hold but a sum kept in the 16-bit
// type cannot reach (past 2048 it moves in steps of 2 or more).
func.func @f16_k4096(%a: tensor<4x4096xf16>, %b: tensor<4096x8xf16>) -> tensor<4x8xf16> {
  %c = tensor.empty() : tensor<4x8xf16>
  %0 = accel.matmul ins(%a, %b : tensor<4x4096xf16>, tensor<4096x8xf16>) outs(%c : tensor<4x8xf16>) -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
func.func @bf16_k4096(%a: tensor<4x4096xbf16>, %b: tensor<4096x8xbf16>) -> tensor<4x8xbf16> {
  %c = tensor.empty() : tensor<4x8xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<4x4096xbf16>, tensor<4096x8xbf16>) outs(%c : tensor<4x8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}
