// An f16 matmul with B as [K, N] and N = 36: rows of B of 72 bytes, which
// 16-byte copies cannot fill (invalid-options.mlir, wgmma).
func.func @n36(%a: tensor<64x64xf16>, %b: tensor<64x36xf16>) -> tensor<64x36xf32> {
  %c = tensor.empty() : tensor<64x36xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x36xf16>) outs(%c : tensor<64x36xf32>) -> tensor<64x36xf32>
  return %0 : tensor<64x36xf32>
}
