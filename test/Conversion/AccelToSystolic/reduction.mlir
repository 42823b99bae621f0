// RUN: accel-opt %s --split-input-file --convert-accel-to-systolic="acc-kib=1" --verify-diagnostics | FileCheck %s
// A row reduction on the vector unit (SystolicElementwise.h): per block of
// rows, strip by strip of the reduced loop, the inputs moved in and the
// body's term computed (here x * x, in one slot: a 1 KiB accumulator of 16
// rows holds two sets of 5 rows and the column), rowsum into the rows'
// column (accumulated after the first strip), the column stored.

// The fill is not a kernel of its own: the reduction takes its constant.
// CHECK-LABEL: systolic.program @sum_of_squares
// CHECK-NOT: tmp
// CHECK-SAME: attributes
// CHECK-NEXT: systolic.mvin 0[0] stride 40 -> acc[0] rows 5 cols 16
// CHECK-NEXT: systolic.vector mul 0, 0, 0 rows 5 cols 16
// CHECK-NEXT: systolic.vector rowsum 10, 0 rows 5 cols 16
// CHECK-NEXT: systolic.mvin 0[16] stride 40 -> acc[5] rows 5 cols 16
// CHECK-NEXT: systolic.vector mul 5, 5, 5 rows 5 cols 16
// CHECK-NEXT: systolic.vector rowsum 10, 5 rows 5 cols 16 accumulate
// CHECK-NEXT: systolic.mvin 0[32] stride 40 -> acc[0] rows 5 cols 8
// CHECK-NEXT: systolic.vector mul 0, 0, 0 rows 5 cols 8
// CHECK-NEXT: systolic.vector rowsum 10, 0 rows 5 cols 8 accumulate
// CHECK-NEXT: systolic.mvout acc[10] rows 5 cols 1 -> 1[0] stride 1
// The last 2 rows.
// CHECK: systolic.mvout acc[10] rows 2 cols 1 -> 1[5] stride 1
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @sum_of_squares(%x: tensor<7x40xf32>) -> tensor<7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<7xf32>) -> tensor<7xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<7x40xf32>) outs(%f : tensor<7xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.mulf %a, %a : f32
    %t = arith.addf %acc, %m : f32
    linalg.yield %t : f32
  } -> tensor<7xf32>
  return %s : tensor<7xf32>
}

// -----

// A max from -inf: no combination at the end.
// CHECK-LABEL: systolic.program @max_from_ninf
// CHECK: systolic.vector rowmax
// CHECK-NOT: systolic.vector max
// CHECK: systolic.mvout
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @max_from_ninf(%x: tensor<3x20xf32>) -> tensor<3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x20xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.maximumf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
func.func @first_loop(%x: tensor<3x20xf32>) -> tensor<20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<20xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<20xf32>) -> tensor<20xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit runs elementwise generics (parallel loops, one result in the loops' order) and reductions over the last loop}}
  %s = linalg.generic {indexing_maps = [#id2, #col2], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<3x20xf32>) outs(%f : tensor<20xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<20xf32>
  return %s : tensor<20xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @init_argument(%x: tensor<3x20xf32>, %i: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @below {{'linalg.generic' op has no systolic lowering: its reduction starts from a value that is not a constant fill}}
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x20xf32>) outs(%i : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @product(%x: tensor<3x20xf32>) -> tensor<3xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit reduces by an addf or maximumf of the output's value and a term (rowsum, rowmax)}}
  %s = linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x20xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.mulf %a, %acc : f32
    linalg.yield %t : f32
  } -> tensor<3xf32>
  return %s : tensor<3xf32>
}
