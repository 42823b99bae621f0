// A written config the dequant kernels cannot follow is refused where it is
// written.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16" -verify-diagnostics
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx2,fma" 2>&1 | FileCheck %s --check-prefix=AVX2
// AVX2: accel-cpu-configure-dequant-invalid.mlir:[[#@LINE+110]]:8: error: 'accel.dequant_matmul' op cannot use cpu-dequant-lut: the CPU has no avx512f (vpermps on 16 lanes)

func.func @matmul_kernel(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                         %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-fma on the CPU: a dequant_matmul takes cpu-dequant, cpu-dequant-lut, cpu-dequant-amx or cpu-loops}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [0, 0, 0], mma = [6, 16, 1]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @loops_with_tile(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                           %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{a cpu-loops config takes no tile and no mma}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-loops", mma = [1, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @not_chunked(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x4xbf16>,
                       %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant: K (64) and the group (16) must be multiples of 32}}
  %0 = accel.dequant_matmul bits(4) group(16)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x4xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @with_tile(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                     %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{a cpu-dequant config takes an mma [mr, nr, 32] and no tile}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", tile = [1, 1, 1], mma = [1, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @lut_int8(%x: tensor<1x64xbf16>, %w: tensor<16x64xi8>, %s: tensor<16x2xbf16>,
                    %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant-lut: it takes bits(4) weights (16 values a table), got bits(8)}}
  %0 = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x64xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @registers(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                     %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant-lut: mr x nr = 4 x 8 needs 51 vector registers; AVX-512 has 32}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [4, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @chunk(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                 %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant: the K chunk must be 32 (two vectors of 16 f32), got 16}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 8, 16]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

func.func @tile_range(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                      %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  // expected-error @+1 {{cannot use cpu-dequant: mr and nr must be 1..8 and 1..16, got 1 x 32}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 32, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

// The AVX2 run: a table kernel needs vpermps on 16 lanes (this split
// expects nothing on AVX-512).
func.func @lut_avx2(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                    %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}
