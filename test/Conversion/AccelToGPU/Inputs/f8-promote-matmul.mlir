// 8-bit float matmuls with B as [N, K], for the promotion checks of
// convert-wgmma.mlir, invalid-options.mlir and ptxas-wgmma.mlir: e4m3 x
// e5m2 into an f32 C that it accumulates (2 K slices of 128), and one whose
// grid would take 256-wide tiles (the default for 16-bit inputs) but
// promotes in 128-wide ones.
func.func @e4m3_e5m2(%a: tensor<64x256xf8E4M3FN>, %b: tensor<64x256xf8E5M2>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<64x256xf8E4M3FN>, tensor<64x256xf8E5M2>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @wide(%a: tensor<4096x512xf8E4M3FN>, %b: tensor<4096x512xf8E4M3FN>) -> tensor<4096x4096xf32> {
  %c = tensor.empty() : tensor<4096x4096xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4096x512xf8E4M3FN>, tensor<4096x512xf8E4M3FN>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}
