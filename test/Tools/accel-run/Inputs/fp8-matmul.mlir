// An e4m3 x e5m2 matmul into f32, K = 256 (two 128-deep K slices), for
// nvptx-fp8-tensor-core-gate.test.
func.func @e4m3_e5m2(%a: tensor<64x256xf8E4M3FN>, %b: tensor<48x256xf8E5M2>) -> tensor<64x48xf32> {
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x256xf8E4M3FN>, tensor<48x256xf8E5M2>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}
