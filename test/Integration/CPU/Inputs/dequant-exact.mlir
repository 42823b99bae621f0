// C = I·wᵀ: each result is one dequantised weight (dequant-exact.test).
func.func @int4(%x: tensor<64x64xf32>, %w: tensor<16x32xi8>, %s: tensor<16x2xf32>,
                %z: tensor<16x2xf32>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %y = accel.dequant_matmul bits(4) group(32) unsigned
         ins(%x, %w : tensor<64x64xf32>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xf32>) zero_points(%z : tensor<16x2xf32>)
         outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}

func.func @int8(%x: tensor<64x64xf32>, %w: tensor<16x64xi8>, %s: tensor<16x2xf16>,
                %z: tensor<16x2xf16>, %c: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %y = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<64x64xf32>, tensor<16x64xi8>)
         scales(%s : tensor<16x2xf16>) zero_points(%z : tensor<16x2xf16>)
         outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}
