// Decode shapes of the GPU dequant kernel at K = 4096, 8 and 16 rows of A
// (the most sums a lane keeps), compiled by ptxas-dequant.test for the
// registers they take; emulate-dequant.mlir checks the kernel's numerics.
func.func @m8_int4(%a: tensor<8x4096xbf16>, %w: tensor<64x2048xi8>, %s: tensor<64x32xbf16>, %z: tensor<64x32xbf16>) -> tensor<8x64xbf16> {
  %c = tensor.empty() : tensor<8x64xbf16>
  %0 = accel.dequant_matmul bits(4) group(128) unsigned ins(%a, %w : tensor<8x4096xbf16>, tensor<64x2048xi8>) scales(%s : tensor<64x32xbf16>) zero_points(%z : tensor<64x32xbf16>) outs(%c : tensor<8x64xbf16>) -> tensor<8x64xbf16>
  return %0 : tensor<8x64xbf16>
}

func.func @m16_int4(%a: tensor<16x4096xbf16>, %w: tensor<64x2048xi8>, %s: tensor<64x32xbf16>, %z: tensor<64x32xbf16>) -> tensor<16x64xf32> {
  %c = tensor.empty() : tensor<16x64xf32>
  %0 = accel.dequant_matmul bits(4) group(128) unsigned ins(%a, %w : tensor<16x4096xbf16>, tensor<64x2048xi8>) scales(%s : tensor<64x32xbf16>) zero_points(%z : tensor<64x32xbf16>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

func.func @m8_int8(%a: tensor<8x4096xf16>, %w: tensor<64x4096xi8>, %s: tensor<64x32xf16>) -> tensor<8x64xf16> {
  %c = tensor.empty() : tensor<8x64xf16>
  %0 = accel.dequant_matmul bits(8) group(128) ins(%a, %w : tensor<8x4096xf16>, tensor<64x4096xi8>) scales(%s : tensor<64x32xf16>) outs(%c : tensor<8x64xf16>) -> tensor<8x64xf16>
  return %0 : tensor<8x64xf16>
}

func.func @m16_f32(%a: tensor<16x4096xf32>, %w: tensor<64x2048xi8>, %s: tensor<64x32xf32>) -> tensor<16x64xf32> {
  %c = tensor.empty() : tensor<16x64xf32>
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<16x4096xf32>, tensor<64x2048xi8>) scales(%s : tensor<64x32xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
