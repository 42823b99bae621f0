// RUN: accel-opt %s --convert-accel-to-systolic="acc-kib=2" | FileCheck %s
// The vector unit's kernel of an elementwise generic (SystolicElementwise.h):
// per block of rows x the accumulator's width, each input moved into its
// accumulator slot (the bias, constant along the rows, read as one row and
// doubled by vector copies; the per-row scale as one column), the body as vector ops (the per-row
// scale by `bcast row`, the constant 2 filled in before the
// non-commutative 2 - x, the ReLU's max by an immediate), the result
// stored by mvout (which rounds to bf16). A 2 KiB accumulator holds 32
// rows: three slots of 5 rows, twice (the next block's loads go to the
// other set while this one computes).

// CHECK-LABEL: systolic.program @bias_scale_relu
// CHECK-SAME: acc_rows = 32
// CHECK-NEXT: systolic.mvin 0[0] stride 20 -> acc[0] rows 5 cols 16
// CHECK-NEXT: systolic.mvin 1[0] stride 0 -> acc[5] rows 1 cols 16
// CHECK-NEXT: systolic.vector copy 6, 5 rows 1 cols 16
// CHECK-NEXT: systolic.vector copy 7, 5 rows 2 cols 16
// CHECK-NEXT: systolic.vector copy 9, 5 rows 1 cols 16
// CHECK-NEXT: systolic.mvin 2[0] stride 1 -> acc[10] rows 5 cols 1
// CHECK-NEXT: systolic.vector add 5, 0, 5 rows 5 cols 16
// CHECK-NEXT: systolic.vector mul 10, 5, 10 rows 5 cols 16 bcast row
// CHECK-NEXT: systolic.vector fill 5, 0 rows 5 cols 16 imm 2.000000e+00
// CHECK-NEXT: systolic.vector sub 10, 5, 10 rows 5 cols 16
// CHECK-NEXT: systolic.vector max 10, 10 rows 5 cols 16 bcast scalar imm 0.000000e+00
// CHECK-NEXT: systolic.mvout acc[10] rows 5 cols 16 -> 3[0] stride 20
// The last 4 columns, in the other set of slots.
// CHECK-NEXT: systolic.mvin 0[16] stride 20 -> acc[15] rows 5 cols 4
// CHECK-NEXT: systolic.mvin 1[16] stride 0 -> acc[20] rows 1 cols 4
// CHECK-COUNT-3: systolic.vector copy
// CHECK-NEXT: systolic.mvin 2[0] stride 1 -> acc[25] rows 5 cols 1
// The next 5 rows.
// CHECK: systolic.mvin 0[100] stride 20 -> acc[0] rows 5 cols 16
// CHECK-NEXT: systolic.mvin 1[0] stride 0 -> acc[5] rows 1 cols 16
// CHECK-COUNT-3: systolic.vector copy
// CHECK-NEXT: systolic.mvin 2[5] stride 1 -> acc[10] rows 5 cols 1
// The last block: rows 35-39, columns 16-19.
// CHECK: systolic.mvout acc[25] rows 5 cols 4 -> 3[716] stride 20
// CHECK-NEXT: systolic.fence
// CHECK-NEXT: }

// A fill: one slot, no loads.
// CHECK-LABEL: systolic.program @fill
// CHECK-NEXT: systolic.vector fill 0, 0 rows 3 cols 16 imm 1.500000e+00
// CHECK-NEXT: systolic.mvout acc[0] rows 3 cols 16 -> 0[0] stride 40
// CHECK-NEXT: systolic.vector fill 3, 0 rows 3 cols 16 imm 1.500000e+00
// CHECK-NEXT: systolic.mvout acc[3] rows 3 cols 16 -> 0[16] stride 40

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @bias_scale_relu(%x: tensor<40x20xf32>, %bias: tensor<20xbf16>, %s: tensor<40xf32>) -> tensor<40x20xbf16> {
  %e = tensor.empty() : tensor<40x20xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #col2, #row2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %bias, %s : tensor<40x20xf32>, tensor<20xbf16>, tensor<40xf32>) outs(%e : tensor<40x20xbf16>) {
  ^bb0(%v: f32, %b: bf16, %sc: f32, %o: bf16):
    %bf = arith.extf %b : bf16 to f32
    %a = arith.addf %v, %bf : f32
    %m = arith.mulf %a, %sc : f32
    %two = arith.constant 2.0 : f32
    %d = arith.subf %two, %m : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %d, %z : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x20xbf16>
  return %1 : tensor<40x20xbf16>
}

func.func @fill() -> tensor<3x40xf32> {
  %e = tensor.empty() : tensor<3x40xf32>
  %v = arith.constant 1.5 : f32
  %0 = linalg.fill ins(%v : f32) outs(%e : tensor<3x40xf32>) -> tensor<3x40xf32>
  return %0 : tensor<3x40xf32>
}

// A truncf in the middle of the body (PyTorch's RMSNorm casts x·rsqrt(..)
// to bf16 before the weight's product) is the unit's round_bf16; the
// truncf the body yields (here the bf16 mulf's own rounding) is the store's.
// CHECK-LABEL: systolic.program @round_in_the_middle
// CHECK: systolic.vector rsqrt 5, 5 rows 5 cols 1
// CHECK-NEXT: systolic.vector mul 5, 0, 5 rows 5 cols 16 bcast row
// CHECK-NEXT: systolic.vector round_bf16 5, 5 rows 5 cols 16
// CHECK-NEXT: systolic.vector mul 10, 5, 10 rows 5 cols 16
// CHECK-NEXT: systolic.mvout acc[10] rows 5 cols 16 -> 3[0] stride 16
// CHECK: systolic.vector round_bf16 20, 20 rows 3 cols 16
// CHECK-NOT: round_bf16
// CHECK: systolic.fence

#id2r = affine_map<(i, j) -> (i, j)>
#row2r = affine_map<(i, j) -> (i)>
#col2r = affine_map<(i, j) -> (j)>
func.func @round_in_the_middle(%x: tensor<8x16xbf16>, %v: tensor<8xf32>, %w: tensor<16xbf16>) -> tensor<8x16xbf16> {
  %e = tensor.empty() : tensor<8x16xbf16>
  %y = linalg.generic {indexing_maps = [#id2r, #row2r, #col2r, #id2r], iterator_types = ["parallel", "parallel"]} ins(%x, %v, %w : tensor<8x16xbf16>, tensor<8xf32>, tensor<16xbf16>) outs(%e : tensor<8x16xbf16>) {
  ^bb0(%a: bf16, %s: f32, %ww: bf16, %o: bf16):
    %r = math.rsqrt %s : f32
    %af = arith.extf %a : bf16 to f32
    %t = arith.mulf %af, %r : f32
    %tb = arith.truncf %t : f32 to bf16
    %u = arith.mulf %tb, %ww : bf16
    linalg.yield %u : bf16
  } -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// A rounding of a constant folds into the immediate (0.3 -> 0.30078125).
// CHECK-LABEL: systolic.program @round_a_constant
// CHECK-NOT: round_bf16
// CHECK: systolic.vector mul 0, 0 rows 4 cols 16 bcast scalar imm 0.30078125
// CHECK-NOT: round_bf16
// CHECK: systolic.fence
func.func @round_a_constant(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %y = linalg.generic {indexing_maps = [#id2r, #id2r], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c = arith.constant 0.3 : f32
    %cb = arith.truncf %c : f32 to bf16
    %cf = arith.extf %cb : bf16 to f32
    %u = arith.mulf %a, %cf : f32
    linalg.yield %u : f32
  } -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}
