// The int4 GEMV of docs/quantization.md with each CPU kernel written into
// its config: the table (cpu-dequant-lut) and the converting one
// (cpu-dequant), same tile 1 x 8.
func.func @lut(%x: tensor<1x4096xbf16>, %w: tensor<4096x2048xi8>, %s: tensor<4096x32xbf16>, %z: tensor<4096x32xbf16>) -> tensor<1x4096xf32> {
  %c = tensor.empty() : tensor<1x4096xf32>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<1x4096xbf16>, tensor<4096x2048xi8>)
         scales(%s : tensor<4096x32xbf16>) zero_points(%z : tensor<4096x32xbf16>)
         outs(%c : tensor<1x4096xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>}
         -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
func.func @convert(%x: tensor<1x4096xbf16>, %w: tensor<4096x2048xi8>, %s: tensor<4096x32xbf16>, %z: tensor<4096x32xbf16>) -> tensor<1x4096xf32> {
  %c = tensor.empty() : tensor<1x4096xf32>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<1x4096xbf16>, tensor<4096x2048xi8>)
         scales(%s : tensor<4096x32xbf16>) zero_points(%z : tensor<4096x32xbf16>)
         outs(%c : tensor<1x4096xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 8, 32]>}
         -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
