// f32 matmuls with B as [N, K] (a linear layer's weight) and up to 24 rows
// of A take cpu-row-dot (accel-cpu-row-dot-kernels): dot products along the
// rows of W, no transposed copy. Checked on the CPU against the fp64 oracle
// with NaN-prefilled outputs. The shapes leave every remainder: rows of A
// past a whole mr (1 x 8 / 2 x 8 / 4 x 4 / 4 x 6 tiles), rows of W past a
// whole nr (1-row tiles), K past a whole 16 (the masked step), K < 16 (only
// the masked step), K in blocks of 256 with several tiles of A's rows (the
// last block partial; lone rows' accumulators kept too); an accumulating
// matmul (C read, no fill), a bias + ReLU
// epilogue after it, one and two threads (the tiles of W rows shared), and
// the AVX2 tiles (1 x 4, 2 x 2).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options="cpu-features=+avx2,+fma" --seed=7 | FileCheck %s
// The kernel is cpu-row-dot's and neither a transpose nor its copy is left:
// RUN: accel-opt %s --accel-cpu-pipeline="cpu-features=+avx512f,+avx512bw,+avx512vl" --mlir-disable-threading --mlir-print-ir-after=accel-cpu-row-dot-kernels -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @decode
// IR-NOT: linalg.transpose
// IR: vector.fma
// IR-NOT: linalg.transpose
// IR: vector.reduction <add>
// IR-LABEL: func.func @accumulate
// IR-NOT: linalg.transpose
// IR-LABEL: func.func @rows_25

// CHECK-LABEL: @decode
// CHECK: PASS
// CHECK-LABEL: @rows_3
// CHECK: PASS
// CHECK-LABEL: @rows_7_k_tail
// CHECK: PASS
// CHECK-LABEL: @rows_16_bias_relu
// CHECK: PASS
// CHECK-LABEL: @k_short
// CHECK: PASS
// CHECK-LABEL: @accumulate
// CHECK: PASS
// CHECK-LABEL: @rows_25
// CHECK: PASS
// CHECK-LABEL: @c_is_w
// CHECK: PASS
// CHECK: accel-run: 8 of 8 functions passed

// M 1 (1 x 8), N 37 (4 blocks of 8 and 5), K 256.
func.func @decode(%x: tensor<1x256xf32>, %w: tensor<37x256xf32>) -> tensor<1x37xf32> {
  %c = tensor.empty() : tensor<1x37xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<1x256xf32>, tensor<37x256xf32>) outs(%c : tensor<1x37xf32>) -> tensor<1x37xf32>
  return %y : tensor<1x37xf32>
}

// M 3 (2 x 8 and a row), N 20, K 96.
func.func @rows_3(%x: tensor<3x96xf32>, %w: tensor<20x96xf32>) -> tensor<3x20xf32> {
  %c = tensor.empty() : tensor<3x20xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<3x96xf32>, tensor<20x96xf32>) outs(%c : tensor<3x20xf32>) -> tensor<3x20xf32>
  return %y : tensor<3x20xf32>
}

// M 7 (4 x 4 and 3 rows), N 30 (7 blocks of 4 and 2), K 600: blocks of
// 256, 256 and 80 (the accumulators of the 4-row tile and of each lone row
// kept between them), then a masked step of 8.
func.func @rows_7_k_tail(%x: tensor<7x600xf32>, %w: tensor<30x600xf32>) -> tensor<7x30xf32> {
  %c = tensor.empty() : tensor<7x30xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<7x600xf32>, tensor<30x600xf32>) outs(%c : tensor<7x30xf32>) -> tensor<7x30xf32>
  return %y : tensor<7x30xf32>
}

// M 16 (4 x 6 tiles), N 64 (10 blocks of 6 and 4), K 515 (two blocks of
// 256 and a masked step of 3), then bias and ReLU as torch-mlir emits them.
func.func @rows_16_bias_relu(%x: tensor<16x515xf32>, %w: tensor<64x515xf32>, %bias: tensor<64xf32>) -> tensor<16x64xf32> {
  %c = tensor.empty() : tensor<16x64xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<16x515xf32>, tensor<64x515xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%y, %bias : tensor<16x64xf32>, tensor<64xf32>) outs(%e : tensor<16x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x64xf32>
  return %r : tensor<16x64xf32>
}

// K 9: one masked step and no whole one.
func.func @k_short(%x: tensor<5x9xf32>, %w: tensor<11x9xf32>) -> tensor<5x11xf32> {
  %c = tensor.empty() : tensor<5x11xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<5x9xf32>, tensor<11x9xf32>) outs(%c : tensor<5x11xf32>) -> tensor<5x11xf32>
  return %y : tensor<5x11xf32>
}

// C += A W^T: C is read, not a fill's value.
func.func @accumulate(%x: tensor<2x48xf32>, %w: tensor<24x48xf32>, %c: tensor<2x24xf32>) -> tensor<2x24xf32> {
  %y = accel.matmul transpose_b accumulate ins(%x, %w : tensor<2x48xf32>, tensor<24x48xf32>) outs(%c : tensor<2x24xf32>) -> tensor<2x24xf32>
  return %y : tensor<2x24xf32>
}

// 25 rows: one past cpu-row-dot's 24, cpu-fma (its panels packed from
// [N, K]: fma-pack-nk.mlir).
func.func @rows_25(%x: tensor<25x40xf32>, %w: tensor<24x40xf32>) -> tensor<25x24xf32> {
  %c = tensor.empty() : tensor<25x24xf32>
  %y = accel.matmul transpose_b ins(%x, %w : tensor<25x40xf32>, tensor<24x40xf32>) outs(%c : tensor<25x24xf32>) -> tensor<25x24xf32>
  return %y : tensor<25x24xf32>
}

// C is W's own buffer (accumulate into the weight): W must not be read in
// place while C is written; the copy stays (cpu-fma reads it, and packs
// its panels from it rather than from W).
func.func @c_is_w(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %y = accel.matmul transpose_b accumulate ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%w : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}
