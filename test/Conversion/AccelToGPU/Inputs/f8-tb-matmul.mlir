// An e4m3 matmul with B as [N, K], for convert-wgmma.mlir's default checks.
func.func @f8tb(%a: tensor<128x256xf8E4M3FN>, %b: tensor<128x256xf8E4M3FN>) -> tensor<128x128xf32> {
  %c = tensor.empty() : tensor<128x128xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}
