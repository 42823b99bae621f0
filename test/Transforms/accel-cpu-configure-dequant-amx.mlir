// The configuration stage's choice for accel.dequant_matmul on a CPU with
// AMX bf16 tiles: int4 weights and bf16 activations from three rows of A
// (or an unknown count) take cpu-dequant-amx, tile [3, 16] (the rows from
// which the AMX kernel runs, 16 weight rows a tile), its mma the table
// kernel's tile for the calls with fewer rows (1 x 8 when the rows are
// unknown); int8 weights from five rows (their other kernel converts);
// fewer rows, f32 activations and bf16-subnormals=keep (AMX flushes bf16
// subnormals) keep the table or converting kernels.
// RUN: accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16,amx-int8" | FileCheck %s
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16,amx-int8 bf16-subnormals=keep" 2>/dev/null | FileCheck %s --check-prefix=KEEP
// Without AVX512-BW (no vpermw), the table.
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,amx-tile,amx-bf16" 2>/dev/null | FileCheck %s --check-prefix=NOBW
// RUN: not accel-opt %s -split-input-file --accel-cpu-configure="features=avx512f,avx512bw,avx512vl,avx512bf16,amx-tile,amx-bf16,amx-int8 bf16-subnormals=keep" 2>&1 >/dev/null | FileCheck %s --check-prefix=KEEP-ERR

// CHECK-LABEL: func @one_row
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [1, 8, 32]>
func.func @one_row(%x: tensor<1x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                   %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<1x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// CHECK-LABEL: func @two_rows
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [2, 8, 32]>
func.func @two_rows(%x: tensor<2x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                    %c: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<2x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<2x64xf32>) -> tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

// CHECK-LABEL: func @three_rows
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [2, 8, 32]>
// KEEP-LABEL: func @three_rows
// KEEP: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [2, 8, 32]>
// NOBW-LABEL: func @three_rows
// NOBW: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [2, 8, 32]>
func.func @three_rows(%x: tensor<3x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                      %z: tensor<64x2xbf16>, %c: tensor<3x64xf32>) -> tensor<3x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<3x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) zero_points(%z : tensor<64x2xbf16>)
         outs(%c : tensor<3x64xf32>) -> tensor<3x64xf32>
  return %0 : tensor<3x64xf32>
}

// -----

// Batch dimensions count as rows: 2 x 8.
// CHECK-LABEL: func @batched
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [4, 4, 32]>
func.func @batched(%x: tensor<2x8x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                   %c: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<2x8x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %0 : tensor<2x8x64xf32>
}

// -----

// CHECK-LABEL: func @dynamic_rows
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [3, 16], mma = [1, 8, 32]>
func.func @dynamic_rows(%x: tensor<?x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                        %c: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<?x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<?x64xf32>) -> tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// -----

// f32 activations would be rounded to bf16 on the tiles: the table.
// CHECK-LABEL: func @f32_activations
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [4, 4, 32]>
func.func @f32_activations(%x: tensor<16x256xf32>, %w: tensor<64x128xi8>, %s: tensor<64x2xf32>,
                           %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<16x256xf32>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// int8 on the tiles too (q - z within +-255: exact in bf16) from five rows
// (its converting kernel is faster to four); its other kernel converts (no
// table of 256 values).
// CHECK-LABEL: func @int8
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [5, 16], mma = [4, 4, 32]>
// KEEP-LABEL: func @int8
// KEEP: #accel.lowering_config<kernel = "cpu-dequant", mma = [4, 4, 32]>
func.func @int8(%x: tensor<16x256xbf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xbf16>,
                %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = accel.dequant_matmul bits(8) group(128)
         ins(%x, %w : tensor<16x256xbf16>, tensor<64x256xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// CHECK-LABEL: func @int8_four_rows
// CHECK: #accel.lowering_config<kernel = "cpu-dequant", mma = [4, 4, 32]>
func.func @int8_four_rows(%x: tensor<4x256xbf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xbf16>,
                          %c: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %0 = accel.dequant_matmul bits(8) group(128)
         ins(%x, %w : tensor<4x256xbf16>, tensor<64x256xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// One row of int8: the converting kernel.
// CHECK-LABEL: func @int8_one_row
// CHECK: #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 8, 32]>
func.func @int8_one_row(%x: tensor<1x256xbf16>, %w: tensor<64x256xi8>, %s: tensor<64x2xbf16>,
                        %c: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %0 = accel.dequant_matmul bits(8) group(128)
         ins(%x, %w : tensor<1x256xbf16>, tensor<64x256xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %0 : tensor<1x64xf32>
}

// -----

// A written one is kept: AMX from 8 rows (with bf16-subnormals=keep, refused).
// KEEP-ERR: accel-cpu-configure-dequant-amx.mlir:[[#@LINE+5]]:8: error: 'accel.dequant_matmul' op cannot use cpu-dequant-amx: it takes bf16 activations (and bf16-subnormals=flush)
// CHECK-LABEL: func @given
// CHECK: #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [8, 16], mma = [2, 8, 32]>
func.func @given(%x: tensor<16x256xbf16>, %w: tensor<64x128xi8>, %s: tensor<64x2xbf16>,
                 %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<16x256xbf16>, tensor<64x128xi8>)
         scales(%s : tensor<64x2xbf16>) outs(%c : tensor<16x64xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-amx", tile = [8, 16], mma = [2, 8, 32]>}
         -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
