// accel-cpu-dequant-kernels checks the config it is given (one that did not
// come through accel-cpu-configure, which refuses the same).
// RUN: accel-opt %s -split-input-file --convert-accel-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --accel-cpu-dequant-kernels -verify-diagnostics

func.func @lut_int8(%x: tensor<1x64xf32>, %w: tensor<4x64xi8>, %s: tensor<4x1xf32>,
                    %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'linalg.generic' op accel-cpu-dequant-kernels: cpu-dequant-lut takes bits(4) weights}}
  %0 = accel.dequant_matmul bits(8) group(64)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x64xi8>)
         scales(%s : tensor<4x1xf32>) outs(%c : tensor<1x4xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 2, 32]>}
         -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @registers(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                     %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'linalg.generic' op accel-cpu-dequant-kernels: mr x nr = 8 x 8 needs 85 vector registers; AVX-512 has 32}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [8, 8, 32]>}
         -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

func.func @amx_f32_activations(%x: tensor<16x64xf32>, %w: tensor<16x32xi8>, %s: tensor<16x2xf32>,
                               %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'linalg.generic' op accel-cpu-dequant-kernels: cpu-dequant-amx takes bf16 activations}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xf32>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xf32>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @amx_without_tile(%x: tensor<16x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                            %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{'linalg.generic' op accel-cpu-dequant-kernels: cpu-dequant-amx takes an mma [mr, nr, 32] and a tile [rows, 16]}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<16x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<16x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 8], mma = [4, 4, 32]>}
         -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
