// int4 and int8 weight-only matmuls with bf16 activations on AMX tiles
// (cpu-dequant-amx, accel-cpu-dequant-kernels) against the fp64 oracle,
// NaN-prefilled outputs. accel-run draws zero points as integers in the
// weights' range (as GPTQ/AWQ store them), so these run on the tiles:
// unsigned and signed, with zero points and without; groups of 32, 64 and 128
// and per-channel (one, two and four tile products a chunk; a group of 512
// spans four chunks); 1, 2 and 8 chunks (the pipeline's prologue and
// epilogue alone, and its loop); 5, 16 and 37 rows of A (one block padded
// with zeros, one whole, three with a padded last: from two blocks each
// chunk of W is unpacked once for up to 8 blocks, tileBlocks), 150 int4
// and 130 int8 rows (two groups of blocks, the second of 2 and 1 blocks,
// partial); weight rows in whole
// tiles of 16 and a last tile of 1-15 (masked stores); bf16, f16 and f32
// scales; batch dimensions; a bf16 output. Zero points with a fraction, or
// outside [0, 15], run the table kernel instead (the check once a call):
// @computed_zero_points. int8: signed without zero points, unsigned with
// them (checked against [0, 255]), and computed ones (the converting kernel).
// --dist=exact (integers in [-2, 2]): bit-exact results.
// REQUIRES: cpu-amx
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact --seed=5 | FileCheck %s
// An infinite scale (the first of each function's): q = z then makes the
// op's product NaN, which a chunk's sum times the scale would not, so the
// scale check sends the call to the other kernel.
// RUN: accel-run %s --repeat=0 --poison=2:0:inf | FileCheck %s
// Every function but the fallback ones has the AMX kernel (and the table
// kernel behind the check).
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl,+avx512bf16,+amx-tile,+amx-bf16,+amx-int8" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-dequant-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @rows16_group128
// IR: amx.tile_mulf
// IR: accel.x86_permute_f32
// IR-LABEL: func.func @rows37_group32_signed
// IR: amx.tile_mulf
// IR-LABEL: func.func @rows5_group64_f16
// IR: amx.tile_mulf
// IR-LABEL: func.func @per_channel
// IR: amx.tile_mulf
// IR-LABEL: func.func @one_chunk
// IR: amx.tile_mulf
// IR-LABEL: func.func @batched_bf16_out
// IR: amx.tile_mulf
// IR-LABEL: func.func @computed_zero_points
// IR: amx.tile_mulf
// IR-LABEL: func.func @int4_signed_zero_points
// IR: amx.tile_mulf
// IR-LABEL: func.func @int8_signed
// IR: amx.tile_mulf
// IR-LABEL: func.func @int8_zero_points
// IR: amx.tile_mulf
// IR-LABEL: func.func @int8_computed_zero_points
// IR: amx.tile_mulf
// IR-LABEL: func.func @rows150_two_groups
// IR: amx.tile_mulf
// IR-LABEL: func.func @int8_rows130
// IR: amx.tile_mulf

// CHECK-LABEL: @rows16_group128
// CHECK: PASS
// CHECK-LABEL: @rows37_group32_signed
// CHECK: PASS
// CHECK-LABEL: @rows5_group64_f16
// CHECK: PASS
// CHECK-LABEL: @per_channel
// CHECK: PASS
// CHECK-LABEL: @one_chunk
// CHECK: PASS
// CHECK-LABEL: @batched_bf16_out
// CHECK: PASS
// CHECK-LABEL: @computed_zero_points
// CHECK: PASS
// CHECK-LABEL: @int4_signed_zero_points
// CHECK: PASS
// CHECK-LABEL: @int8_signed
// CHECK: PASS
// CHECK-LABEL: @int8_zero_points
// CHECK: PASS
// CHECK-LABEL: @int8_computed_zero_points
// CHECK: PASS
// CHECK-LABEL: @rows150_two_groups
// CHECK: PASS
// CHECK-LABEL: @int8_rows130
// CHECK: PASS
// CHECK: accel-run: 13 of 13 functions passed

// 40 weight rows: two tiles and 8; K 512: 4 chunks of 128.
func.func @rows16_group128(%x: tensor<16x512xbf16>, %w: tensor<40x256xi8>, %s: tensor<40x4xbf16>,
                           %z: tensor<40x4xbf16>, %c: tensor<16x40xf32>) -> tensor<16x40xf32> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<16x512xbf16>, tensor<40x256xi8>)
         scales(%s : tensor<40x4xbf16>) zero_points(%z : tensor<40x4xbf16>)
         outs(%c : tensor<16x40xf32>) -> tensor<16x40xf32>
  return %y : tensor<16x40xf32>
}

// Three blocks of 16 rows of A (the last 5 rows, 11 padded); chunks of one
// tile product (group 32): 8 chunks.
func.func @rows37_group32_signed(%x: tensor<37x256xbf16>, %w: tensor<16x128xi8>, %s: tensor<16x8xf32>,
                                 %c: tensor<37x16xf32>) -> tensor<37x16xf32> {
  %y = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<37x256xbf16>, tensor<16x128xi8>)
         scales(%s : tensor<16x8xf32>)
         outs(%c : tensor<37x16xf32>) -> tensor<37x16xf32>
  return %y : tensor<37x16xf32>
}

// Chunks of two tile products; a last tile of one weight row.
func.func @rows5_group64_f16(%x: tensor<5x512xbf16>, %w: tensor<33x256xi8>, %s: tensor<33x8xf16>,
                             %z: tensor<33x8xf16>, %c: tensor<5x33xf32>) -> tensor<5x33xf32> {
  %y = accel.dequant_matmul bits(4) group(64) unsigned
         ins(%x, %w : tensor<5x512xbf16>, tensor<33x256xi8>)
         scales(%s : tensor<33x8xf16>) zero_points(%z : tensor<33x8xf16>)
         outs(%c : tensor<5x33xf32>) -> tensor<5x33xf32>
  return %y : tensor<5x33xf32>
}

// One group of 512: four chunks share its scale.
func.func @per_channel(%x: tensor<8x512xbf16>, %w: tensor<48x256xi8>, %s: tensor<48x1xbf16>,
                       %z: tensor<48x1xbf16>, %c: tensor<8x48xf32>) -> tensor<8x48xf32> {
  %y = accel.dequant_matmul bits(4) group(512) unsigned
         ins(%x, %w : tensor<8x512xbf16>, tensor<48x256xi8>)
         scales(%s : tensor<48x1xbf16>) zero_points(%z : tensor<48x1xbf16>)
         outs(%c : tensor<8x48xf32>) -> tensor<8x48xf32>
  return %y : tensor<8x48xf32>
}

// K 128: one chunk (the pipeline without its loop).
func.func @one_chunk(%x: tensor<4x128xbf16>, %w: tensor<24x64xi8>, %s: tensor<24x1xbf16>,
                     %z: tensor<24x1xbf16>, %c: tensor<4x24xf32>) -> tensor<4x24xf32> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<4x128xbf16>, tensor<24x64xi8>)
         scales(%s : tensor<24x1xbf16>) zero_points(%z : tensor<24x1xbf16>)
         outs(%c : tensor<4x24xf32>) -> tensor<4x24xf32>
  return %y : tensor<4x24xf32>
}

// Batch dimensions (2 x 6 rows), K 256 (two chunks), a bf16 result.
func.func @batched_bf16_out(%x: tensor<2x6x256xbf16>, %w: tensor<32x128xi8>, %s: tensor<32x2xbf16>,
                            %z: tensor<32x2xbf16>, %c: tensor<2x6x32xbf16>) -> tensor<2x6x32xbf16> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<2x6x256xbf16>, tensor<32x128xi8>)
         scales(%s : tensor<32x2xbf16>) zero_points(%z : tensor<32x2xbf16>)
         outs(%c : tensor<2x6x32xbf16>) -> tensor<2x6x32xbf16>
  return %y : tensor<2x6x32xbf16>
}

// z = 2 zi with zi drawn as any other input (not as zero points): with
// the default inputs not integers, with --dist=exact integers in [-4, 4],
// some below the weights' range; either way the table kernel (exact
// products: the oracle and the kernel see the same z).
func.func @computed_zero_points(%x: tensor<16x256xbf16>, %w: tensor<32x128xi8>, %s: tensor<32x2xbf16>,
                                %zi: tensor<32x2xbf16>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %two = arith.constant dense<2.0> : tensor<32x2xbf16>
  %z = arith.mulf %zi, %two : tensor<32x2xbf16>
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<16x256xbf16>, tensor<32x128xi8>)
         scales(%s : tensor<32x2xbf16>) zero_points(%z : tensor<32x2xbf16>)
         outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// Signed int4 with zero points (z in [-8, 7]): the nibble of a q below 0
// is q + 16, so the index is the nibble xor 8 plus 8 - z.
func.func @int4_signed_zero_points(%x: tensor<16x256xbf16>, %w: tensor<24x128xi8>, %s: tensor<24x2xbf16>,
                                   %z: tensor<24x2xbf16>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %y = accel.dequant_matmul bits(4) group(128)
         ins(%x, %w : tensor<16x256xbf16>, tensor<24x128xi8>)
         scales(%s : tensor<24x2xbf16>) zero_points(%z : tensor<24x2xbf16>)
         outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %y : tensor<16x24xf32>
}

// int8, signed, f32 scales in groups of 32: chunks of one tile product.
func.func @int8_signed(%x: tensor<16x256xbf16>, %w: tensor<24x256xi8>, %s: tensor<24x8xf32>,
                       %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %y = accel.dequant_matmul bits(8) group(32)
         ins(%x, %w : tensor<16x256xbf16>, tensor<24x256xi8>)
         scales(%s : tensor<24x8xf32>)
         outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %y : tensor<16x24xf32>
}

// int8, unsigned with zero points (q - z up to 255), 21 rows of A.
func.func @int8_zero_points(%x: tensor<21x512xbf16>, %w: tensor<33x512xi8>, %s: tensor<33x4xbf16>,
                            %z: tensor<33x4xbf16>, %c: tensor<21x33xf32>) -> tensor<21x33xf32> {
  %y = accel.dequant_matmul bits(8) group(128) unsigned
         ins(%x, %w : tensor<21x512xbf16>, tensor<33x512xi8>)
         scales(%s : tensor<33x4xbf16>) zero_points(%z : tensor<33x4xbf16>)
         outs(%c : tensor<21x33xf32>) -> tensor<21x33xf32>
  return %y : tensor<21x33xf32>
}

// int8 zero points computed as for int4: the converting kernel.
func.func @int8_computed_zero_points(%x: tensor<8x256xbf16>, %w: tensor<16x256xi8>, %s: tensor<16x2xbf16>,
                                     %zi: tensor<16x2xbf16>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %two = arith.constant dense<2.0> : tensor<16x2xbf16>
  %z = arith.mulf %zi, %two : tensor<16x2xbf16>
  %y = accel.dequant_matmul bits(8) group(128) unsigned
         ins(%x, %w : tensor<8x256xbf16>, tensor<16x256xi8>)
         scales(%s : tensor<16x2xbf16>) zero_points(%z : tensor<16x2xbf16>)
         outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// 150 rows: 10 blocks of A (the last of 6 rows) in two groups (8 and 2);
// 40 weight rows (two tiles and a last of 8); 4 chunks of 128.
func.func @rows150_two_groups(%x: tensor<150x512xbf16>, %w: tensor<40x256xi8>, %s: tensor<40x4xbf16>,
                              %z: tensor<40x4xbf16>, %c: tensor<150x40xf32>) -> tensor<150x40xf32> {
  %y = accel.dequant_matmul bits(4) group(128) unsigned
         ins(%x, %w : tensor<150x512xbf16>, tensor<40x256xi8>)
         scales(%s : tensor<40x4xbf16>) zero_points(%z : tensor<40x4xbf16>)
         outs(%c : tensor<150x40xf32>) -> tensor<150x40xf32>
  return %y : tensor<150x40xf32>
}

// int8, 130 rows: 9 blocks (8 and 1, the last of 2 rows); signed with zero
// points, groups of 64 (chunks of two tile products); a last tile of 1.
func.func @int8_rows130(%x: tensor<130x256xbf16>, %w: tensor<33x256xi8>, %s: tensor<33x4xbf16>,
                        %z: tensor<33x4xbf16>, %c: tensor<130x33xf32>) -> tensor<130x33xf32> {
  %y = accel.dequant_matmul bits(8) group(64)
         ins(%x, %w : tensor<130x256xbf16>, tensor<33x256xi8>)
         scales(%s : tensor<33x4xbf16>) zero_points(%z : tensor<33x4xbf16>)
         outs(%c : tensor<130x33xf32>) -> tensor<130x33xf32>
  return %y : tensor<130x33xf32>
}
