// RUN: accel-opt %s --split-input-file --convert-accel-to-systolic="acc-kib=1" --verify-diagnostics | FileCheck %s
// accel.softmax over the last dimension on the vector unit
// (SystolicSoftmax.h). A 1 KiB accumulator holds 16 rows; a row of 40
// elements takes 3 strips, and the max and the sum in 3 partials each (a
// strip's reduction issues in one cycle, its result lands 4 later: strips
// go round the partials so that consecutive reductions do not wait), so
// blocks of 1 row in one set of 9 rows: the strips moved in, rowmax into
// the partials and their max, every strip's x - max (a -inf max read as
// 0), then every strip's exp, rowsum into the partials and their sum, the
// division (0 for a sum of 0), each strip stored (rounded to bf16).

// CHECK-LABEL: systolic.program @rows
// CHECK-NEXT: systolic.mvin 0[0] stride 40 -> acc[0] rows 1 cols 16
// CHECK-NEXT: systolic.mvin 0[16] stride 40 -> acc[1] rows 1 cols 16
// CHECK-NEXT: systolic.mvin 0[32] stride 40 -> acc[2] rows 1 cols 8
// CHECK-NEXT: systolic.vector rowmax 3, 0 rows 1 cols 16
// CHECK-NEXT: systolic.vector rowmax 4, 1 rows 1 cols 16
// CHECK-NEXT: systolic.vector rowmax 5, 2 rows 1 cols 8
// CHECK-NEXT: systolic.vector max 3, 3, 4 rows 1 cols 1
// CHECK-NEXT: systolic.vector max 3, 3, 5 rows 1 cols 1
// CHECK-NEXT: systolic.vector sub 0, 0, 3 rows 1 cols 16 bcast row inf_is_zero
// CHECK-NEXT: systolic.vector sub 1, 1, 3 rows 1 cols 16 bcast row inf_is_zero
// CHECK-NEXT: systolic.vector sub 2, 2, 3 rows 1 cols 8 bcast row inf_is_zero
// CHECK-NEXT: systolic.vector exp 0, 0 rows 1 cols 16
// CHECK: systolic.vector rowsum 6, 0 rows 1 cols 16
// CHECK-NEXT: systolic.vector rowsum 7, 1 rows 1 cols 16
// CHECK-NEXT: systolic.vector rowsum 8, 2 rows 1 cols 8
// CHECK-NEXT: systolic.vector add 6, 6, 7 rows 1 cols 1
// CHECK-NEXT: systolic.vector add 6, 6, 8 rows 1 cols 1
// CHECK-NEXT: systolic.vector div 0, 0, 6 rows 1 cols 16 bcast row inf_is_zero
// CHECK-NEXT: systolic.mvout acc[0] rows 1 cols 16 -> 1[0] stride 40
// The next row.
// CHECK: systolic.mvin 0[40] stride 40 -> acc[0] rows 1 cols 16
// CHECK: systolic.mvout acc[2] rows 1 cols 8 -> 1[72] stride 40
func.func @rows(%x: tensor<3x40xf32>) -> tensor<3x40xbf16> {
  %e = tensor.empty() : tensor<3x40xbf16>
  %0 = accel.softmax dimension(1) ins(%x : tensor<3x40xf32>) outs(%e : tensor<3x40xbf16>) -> tensor<3x40xbf16>
  return %0 : tensor<3x40xbf16>
}

// -----

func.func @not_last(%x: tensor<3x40xf32>) -> tensor<3x40xf32> {
  %e = tensor.empty() : tensor<3x40xf32>
  // expected-error @below {{'accel.softmax' op over dimension 0 of 2 has no systolic lowering: the vector unit reduces along the last dimension (a row of the accumulator)}}
  %0 = accel.softmax dimension(0) ins(%x : tensor<3x40xf32>) outs(%e : tensor<3x40xf32>) -> tensor<3x40xf32>
  return %0 : tensor<3x40xf32>
}

// -----

func.func @f16(%x: tensor<3x40xf16>) -> tensor<3x40xf16> {
  %e = tensor.empty() : tensor<3x40xf16>
  // expected-error @below {{'accel.softmax' op of 'f16' -> 'f16' has no systolic lowering: the vector unit reads and writes f32 or bf16}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<3x40xf16>) outs(%e : tensor<3x40xf16>) -> tensor<3x40xf16>
  return %0 : tensor<3x40xf16>
}

// -----

// 16 accumulator rows; a row of 300 elements takes 19 strips and 2 more.
func.func @too_long(%x: tensor<2x300xf32>) -> tensor<2x300xf32> {
  %e = tensor.empty() : tensor<2x300xf32>
  // expected-error @below {{'accel.softmax' op rows of 300 elements take 21 accumulator rows each (their strips of 16, the max and the sum); the machine has 16}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<2x300xf32>) outs(%e : tensor<2x300xf32>) -> tensor<2x300xf32>
  return %0 : tensor<2x300xf32>
}

// -----

func.func @i8_program(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>, %x: tensor<3x40xf32>) -> (tensor<4x4xi32>, tensor<3x40xf32>) {
  %c = tensor.empty() : tensor<4x4xi32>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x4xi8>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  %e = tensor.empty() : tensor<3x40xf32>
  // expected-error @below {{'accel.softmax' op has no systolic lowering in a program of i8 matmuls: the vector unit works on an f32 accumulator, theirs is i32}}
  %1 = accel.softmax dimension(1) ins(%x : tensor<3x40xf32>) outs(%e : tensor<3x40xf32>) -> tensor<3x40xf32>
  return %0, %1 : tensor<4x4xi32>, tensor<3x40xf32>
}
