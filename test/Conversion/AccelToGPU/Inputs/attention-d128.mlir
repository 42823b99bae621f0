// A D = Dv = 128 bf16 attention, for invalid-attention-wgmma.mlir.
func.func @d128(%q: tensor<1x2x256x128xbf16>, %k: tensor<1x2x256x128xbf16>, %v: tensor<1x2x256x128xbf16>) -> tensor<1x2x256x128xf32> {
  %o = tensor.empty() : tensor<1x2x256x128xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>, tensor<1x2x256x128xbf16>) outs(%o : tensor<1x2x256x128xf32>) -> tensor<1x2x256x128xf32>
  return %0 : tensor<1x2x256x128xf32>
}
