// A weight-only int4 GEMV (dequant-targets.test).
func.func @q4(%x: tensor<1x4096xbf16>, %w: tensor<4096x2048xi8>, %s: tensor<4096x32xbf16>) -> tensor<1x4096xf32> {
  %c = tensor.empty() : tensor<1x4096xf32>
  %y = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<1x4096xbf16>, tensor<4096x2048xi8>)
         scales(%s : tensor<4096x32xbf16>)
         outs(%c : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
