// Each function returns its zero points as well (read back by
// ../dequant-zero-points.test).
func.func @int4_unsigned(%x: tensor<4x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                         %z: tensor<64x2xbf16>, %c: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<64x2xbf16>) {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<4x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) zero_points(%z : tensor<64x2xbf16>)
         outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y, %z : tensor<4x64xf32>, tensor<64x2xbf16>
}

func.func @int4_signed(%x: tensor<4x256xf32>, %w: tensor<64x128xi8>, %s: tensor<64x2xf32>,
                       %z: tensor<64x2xf32>, %c: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<64x2xf32>) {
  %y = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<4x256xf32>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xf32>) zero_points(%z : tensor<64x2xf32>)
         outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y, %z : tensor<4x64xf32>, tensor<64x2xf32>
}

func.func @int8_unsigned(%x: tensor<4x256xf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xf16>,
                         %z: tensor<64x2xf16>, %c: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<64x2xf16>) {
  %y = accel.dequant_matmul bits(8) group(128) unsigned
         ins(%x, %w : tensor<4x256xf16>, tensor<64x256xi8>)
         scales(%s : tensor<64x2xf16>) zero_points(%z : tensor<64x2xf16>)
         outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %y, %z : tensor<4x64xf32>, tensor<64x2xf16>
}
