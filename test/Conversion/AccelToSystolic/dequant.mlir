// RUN: accel-opt %s --convert-accel-to-systolic="acc-kib=1" | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-systolic | FileCheck %s --check-prefix=SPLIT
// accel.dequant_matmul on the array (SystolicDequant.h), on a 16-row
// accumulator that holds strips of two weight rows: Aᵀ's tiles moved in
// once (transposed, into the scratchpad behind four weight tiles), per
// strip and group the group's scales as a column, the packed weights
// unpacked by the DMA into the scratchpad (int4: offsets and strides in
// nibbles), Aᵀ's tile preloaded and the weight rows streamed through it
// (the group's second tile accumulating), the group's sums scaled per row
// of Cᵀ (the first group's in place, the second's in its own block, then
// added), and Cᵀ stored transposed. Strips alternate between two blocks
// of Cᵀ (rows 0 and 2).

// CHECK-LABEL: systolic.program @int4_two_groups
// CHECK-SAME: input = bf16
// CHECK-SAME: acc_rows = 16
// CHECK-NEXT: systolic.config ws
// CHECK-NEXT: systolic.mvin 0[0] stride 64 -> spad[8] rows 16 cols 3 transpose
// CHECK-NEXT: systolic.mvin 0[16] stride 64 -> spad[24] rows 16 cols 3 transpose
// CHECK-NEXT: systolic.mvin 0[32] stride 64 -> spad[40] rows 16 cols 3 transpose
// CHECK-NEXT: systolic.mvin 0[48] stride 64 -> spad[56] rows 16 cols 3 transpose
// CHECK-NEXT: systolic.mvin 2[0] stride 2 -> acc[8] rows 2 cols 1
// CHECK-NEXT: systolic.mvin 1[0] stride 64 -> spad[0] rows 2 cols 16 unpack s4
// CHECK-NEXT: systolic.preload weights spad[8] to acc[0] m 2 k 16 n 3
// CHECK-NEXT: systolic.compute preloaded spad[0] m 2 k 16 n 3
// CHECK-NEXT: systolic.mvin 1[16] stride 64 -> spad[2] rows 2 cols 16 unpack s4
// CHECK-NEXT: systolic.preload weights spad[24] to acc[0] m 2 k 16 n 3 accumulate
// CHECK-NEXT: systolic.compute preloaded spad[2] m 2 k 16 n 3
// CHECK-NEXT: systolic.vector mul 0, 0, 8 rows 2 cols 3 bcast row
// CHECK-NEXT: systolic.mvin 2[1] stride 2 -> acc[10] rows 2 cols 1
// CHECK-NEXT: systolic.mvin 1[32] stride 64 -> spad[4] rows 2 cols 16 unpack s4
// CHECK-NEXT: systolic.preload weights spad[40] to acc[6] m 2 k 16 n 3
// CHECK-NEXT: systolic.compute preloaded spad[4] m 2 k 16 n 3
// CHECK-NEXT: systolic.mvin 1[48] stride 64 -> spad[6] rows 2 cols 16 unpack s4
// CHECK-NEXT: systolic.preload weights spad[56] to acc[6] m 2 k 16 n 3 accumulate
// CHECK-NEXT: systolic.compute preloaded spad[6] m 2 k 16 n 3
// CHECK-NEXT: systolic.vector mul 6, 6, 10 rows 2 cols 3 bcast row
// CHECK-NEXT: systolic.vector add 0, 0, 6 rows 2 cols 3
// CHECK-NEXT: systolic.mvout acc[0] rows 2 cols 3 -> 3[0] stride 20 transpose
// CHECK-NEXT: systolic.mvin 2[4] stride 2 -> acc[8] rows 2 cols 1
// CHECK-NEXT: systolic.mvin 1[128] stride 64 -> spad[0] rows 2 cols 16 unpack s4
// CHECK-NEXT: systolic.preload weights spad[8] to acc[2] m 2 k 16 n 3
// CHECK: systolic.mvout acc[2] rows 2 cols 3 -> 3[18] stride 20 transpose
// CHECK-NEXT: systolic.fence

// f32 activations: each weight tile dequantised in the accumulator by the
// op's rule, (q - z) * s per row, copied into the scratchpad, then
// streamed; Cᵀ sums over all of K (no group scaling after the array).
// CHECK-LABEL: systolic.program @zero_points
// CHECK-SAME: input = f32
// CHECK-NEXT: systolic.config ws
// CHECK-NEXT: systolic.mvin 0[0] stride 16 -> spad[8] rows 16 cols 2 transpose
// CHECK-NEXT: systolic.mvin 2[0] stride 1 -> acc[8] rows 2 cols 1
// CHECK-NEXT: systolic.mvin 3[0] stride 1 -> acc[12] rows 2 cols 1
// CHECK-NEXT: systolic.mvin 1[0] stride 16 -> acc[0] rows 2 cols 16 unpack u8
// CHECK-NEXT: systolic.vector sub 0, 0, 12 rows 2 cols 16 bcast row
// CHECK-NEXT: systolic.vector mul 0, 0, 8 rows 2 cols 16 bcast row
// CHECK-NEXT: systolic.vector copy to_spad 0, 0 rows 2 cols 16
// CHECK-NEXT: systolic.preload weights spad[8] to acc[4] m 2 k 16 n 2
// CHECK-NEXT: systolic.compute preloaded spad[0] m 2 k 16 n 2
// CHECK-NEXT: systolic.mvout acc[4] rows 2 cols 2 -> 4[0] stride 8 transpose

// Zero points with bf16 activations: q - z in the accumulator, split into
// hi, mid and lo bf16 parts (the tile in the lowest rows, each part
// rounded into rows at the top: another bank; copy to the scratchpad,
// subtract, twice, and the rest), the three streamed through the same Aᵀ
// tile onto the same sums.
// SPLIT-LABEL: systolic.program @zero_points_bf16
// SPLIT: systolic.mvin 1[0] stride 16 -> acc[0] rows 4 cols 16 unpack u4
// SPLIT-NEXT: systolic.vector sub 0, 0, 32 rows 4 cols 16 bcast row
// SPLIT-NEXT: systolic.vector round_bf16 1016, 0 rows 4 cols 16
// SPLIT-NEXT: systolic.vector copy to_spad 0, 1016 rows 4 cols 16
// SPLIT-NEXT: systolic.vector sub 0, 0, 1016 rows 4 cols 16
// SPLIT-NEXT: systolic.vector round_bf16 1016, 0 rows 4 cols 16
// SPLIT-NEXT: systolic.vector copy to_spad 4, 1016 rows 4 cols 16
// SPLIT-NEXT: systolic.vector sub 0, 0, 1016 rows 4 cols 16
// SPLIT-NEXT: systolic.vector copy to_spad 8, 0 rows 4 cols 16
// SPLIT-NEXT: systolic.preload weights spad[48] to acc[8] m 4 k 16 n 1
// SPLIT-NEXT: systolic.compute preloaded spad[0] m 4 k 16 n 1
// SPLIT-NEXT: systolic.preload to acc[8] m 4 k 16 n 1 accumulate
// SPLIT-NEXT: systolic.compute spad[4] m 4 k 16 n 1
// SPLIT-NEXT: systolic.preload to acc[8] m 4 k 16 n 1 accumulate
// SPLIT-NEXT: systolic.compute spad[8] m 4 k 16 n 1
// SPLIT-NEXT: systolic.vector mul 8, 8, 24 rows 4 cols 1 bcast row

func.func @int4_two_groups(%x: tensor<3x64xbf16>, %w: tensor<20x32xi8>, %s: tensor<20x2xbf16>) -> tensor<3x20xbf16> {
  %c = tensor.empty() : tensor<3x20xbf16>
  %y = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<3x64xbf16>, tensor<20x32xi8>)
         scales(%s : tensor<20x2xbf16>)
         outs(%c : tensor<3x20xbf16>) -> tensor<3x20xbf16>
  return %y : tensor<3x20xbf16>
}
func.func @zero_points(%x: tensor<2x16xf32>, %w: tensor<8x16xi8>, %s: tensor<8x1xf32>, %z: tensor<8x1xf32>) -> tensor<2x8xf32> {
  %c = tensor.empty() : tensor<2x8xf32>
  %y = accel.dequant_matmul bits(8) group(16) unsigned
         ins(%x, %w : tensor<2x16xf32>, tensor<8x16xi8>)
         scales(%s : tensor<8x1xf32>) zero_points(%z : tensor<8x1xf32>)
         outs(%c : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

func.func @zero_points_bf16(%x: tensor<1x16xbf16>, %w: tensor<4x8xi8>, %s: tensor<4x1xbf16>, %z: tensor<4x1xbf16>) -> tensor<1x4xf32> {
  %c = tensor.empty() : tensor<1x4xf32>
  %y = accel.dequant_matmul bits(4) group(16) unsigned
         ins(%x, %w : tensor<1x16xbf16>, tensor<4x8xi8>)
         scales(%s : tensor<4x1xbf16>) zero_points(%z : tensor<4x1xbf16>)
         outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %y : tensor<1x4xf32>
}
