// The configuration stage's choice for accel.dequant_matmul: int4 on
// AVX-512 looks its weights up (cpu-dequant-lut), int8 converts them
// (cpu-dequant); the register tile follows the rows of A (1 x 8 for one
// row, 2 x 8 for two or three, 4 x 4 from four or an unknown count); K or
// a group that is not a multiple of 32 leaves the reference loops
// (cpu-loops). Without AVX-512 a vector of 16 f32 takes two ymm: converting
// kernels of 1 x 4 and 2 x 2.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bf16,avx512vnni" | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx2,fma" | FileCheck %s --check-prefix=AVX2

// CHECK-LABEL: func @gemv_int4
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>
// AVX2-LABEL: func @gemv_int4
// AVX2: #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 4, 32]>
func.func @gemv_int4(%x: tensor<1x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                     %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<1x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// CHECK-LABEL: func @three_rows_int4
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [2, 8, 32]>
// AVX2-LABEL: func @three_rows_int4
// AVX2: #accel.lowering_config<kernel = "cpu-dequant", mma = [2, 2, 32]>
func.func @three_rows_int4(%x: tensor<3x256xf32>, %w: tensor<64x128xi8>, %s: tensor<64x2xf32>,
                           %c: tensor<3x64xf32>) -> tensor<3x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<3x256xf32>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xf32>) outs(%c : tensor<3x64xf32>) -> tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}

// -----

// Batch dimensions count as rows; int8 converts.
// CHECK-LABEL: func @batched_int8
// CHECK: #accel.lowering_config<kernel = "cpu-dequant", mma = [4, 4, 32]>
func.func @batched_int8(%x: tensor<2x2x64xf16>, %w: tensor<16x64xi8>, %s: tensor<16x1xf16>,
                        %c: tensor<2x2x16xf16>) -> tensor<2x2x16xf16> {
  %0 = accel.dequant_matmul bits(8) group(64)
         ins(%x, %w : tensor<2x2x64xf16>, tensor<16x64xi8>)
         scales(%s : tensor<16x1xf16>) outs(%c : tensor<2x2x16xf16>) -> tensor<2x2x16xf16>
  return %0 : tensor<2x2x16xf16>
}

// -----

// CHECK-LABEL: func @dynamic_rows
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [4, 4, 32]>
func.func @dynamic_rows(%x: tensor<?x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                        %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<?x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// A group of 16 is not a whole 32-weight chunk: the loops.
// CHECK-LABEL: func @small_group
// CHECK: #accel.lowering_config<kernel = "cpu-loops">
func.func @small_group(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x4xbf16>,
                       %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = accel.dequant_matmul bits(4) group(16)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x4xbf16>) outs(%c : tensor<1x16xf32>) -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

// A written config is kept (and checked).
// CHECK-LABEL: func @given
// CHECK: #accel.lowering_config<kernel = "cpu-dequant", mma = [2, 4, 32]>
func.func @given(%x: tensor<1x64xbf16>, %w: tensor<16x32xi8>, %s: tensor<16x2xbf16>,
                 %c: tensor<1x16xf32>) -> tensor<1x16xf32> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<16x32xi8>)
         scales(%s : tensor<16x2xbf16>) outs(%c : tensor<1x16xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [2, 4, 32]>}
         -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}
