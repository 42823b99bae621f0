// A bf16 matmul with K = 20: rows of A of 40 bytes, which 16-byte copies
// cannot fill (convert-wgmma.mlir, invalid-options.mlir).
func.func @k20(%a: tensor<64x20xbf16>, %b: tensor<20x64xbf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x20xbf16>, tensor<20x64xbf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
