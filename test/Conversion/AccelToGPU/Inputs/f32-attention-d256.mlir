// f32 attention with D = Dv = 256: its K and V buffers pass 64 KiB.
func.func @d256(%q: tensor<1x1x64x256xf32>, %k: tensor<1x1x64x256xf32>, %v: tensor<1x1x64x256xf32>) -> tensor<1x1x64x256xf32> {
  %o = tensor.empty() : tensor<1x1x64x256xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x64x256xf32>, tensor<1x1x64x256xf32>, tensor<1x1x64x256xf32>) outs(%o : tensor<1x1x64x256xf32>) -> tensor<1x1x64x256xf32>
  return %0 : tensor<1x1x64x256xf32>
}
