// RUN: accel-opt %s --split-input-file --convert-accel-to-systolic --verify-diagnostics | FileCheck %s
// RoPE's halves on the vector unit: a static, rank-keeping slice is a view
// of its source (the second half's rows start at element 32, x's stride
// 64), and each generic writes its half of the tensor.concat's buffer
// (columns 0-31 and 32-63 of result 0, stride 64); the halves have no
// buffer of their own.

// CHECK-LABEL: systolic.program @half_split
// CHECK-SAME: buffers [#systolic.buffer<"arg0", arg 0, tensor<3x64xf32>>, #systolic.buffer<"arg1", arg 1, tensor<3x32xf32>>, #systolic.buffer<"arg2", arg 2, tensor<3x32xf32>>, #systolic.buffer<"result0", result 0, tensor<3x64xf32>>]
// CHECK: systolic.mvin 0[0] stride 64 -> acc[{{[0-9]+}}] rows 3 cols 16
// CHECK: systolic.mvin 0[32] stride 64 -> acc[{{[0-9]+}}] rows 3 cols 16
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 3 cols 16 -> 3[0] stride 64
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 3 cols 16 -> 3[16] stride 64
// The second generic: its columns 32-63.
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 3 cols 16 -> 3[32] stride 64
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 3 cols 16 -> 3[48] stride 64
#m = affine_map<(s, d) -> (s, d)>
func.func @half_split(%x: tensor<3x64xf32>, %cos: tensor<3x32xf32>, %sin: tensor<3x32xf32>) -> tensor<3x64xf32> {
  %x1 = tensor.extract_slice %x[0, 0] [3, 32] [1, 1] : tensor<3x64xf32> to tensor<3x32xf32>
  %x2 = tensor.extract_slice %x[0, 32] [3, 32] [1, 1] : tensor<3x64xf32> to tensor<3x32xf32>
  %e = tensor.empty() : tensor<3x32xf32>
  %o1 = linalg.generic {indexing_maps = [#m, #m, #m, #m, #m], iterator_types = ["parallel", "parallel"]} ins(%x1, %x2, %cos, %sin : tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>) outs(%e : tensor<3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<3x32xf32>
  %o2 = linalg.generic {indexing_maps = [#m, #m, #m, #m, #m], iterator_types = ["parallel", "parallel"]} ins(%x1, %x2, %cos, %sin : tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>, tensor<3x32xf32>) outs(%e : tensor<3x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<3x32xf32>
  %r = tensor.concat dim(1) %o1, %o2 : (tensor<3x32xf32>, tensor<3x32xf32>) -> tensor<3x64xf32>
  return %r : tensor<3x64xf32>
}

// -----

// Interleaved pairs: a stride-2 slice's row is moved in through the DMA's
// transpose (16 elements at stride 2, one accumulator row each), the
// result stored the same way into the stride-2 insert's columns.
// CHECK-LABEL: systolic.program @interleaved
// CHECK: systolic.mvin 0[0] stride 2 -> acc[{{[0-9]+}}] rows 1 cols 8 transpose
// CHECK: systolic.mvin 0[16] stride 2 -> acc[{{[0-9]+}}] rows 1 cols 8 transpose
// CHECK: systolic.mvin 0[32] stride 2 -> acc[{{[0-9]+}}] rows 1 cols 8 transpose
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 1 cols 8 -> 2[1] stride 2 transpose
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 1 cols 8 -> 2[17] stride 2 transpose
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 1 cols 8 -> 2[33] stride 2 transpose
#m = affine_map<(s, d) -> (s, d)>
func.func @interleaved(%x: tensor<3x16xf32>, %cos: tensor<3x8xf32>) -> tensor<3x16xf32> {
  %xe = tensor.extract_slice %x[0, 0] [3, 8] [1, 2] : tensor<3x16xf32> to tensor<3x8xf32>
  %e = tensor.empty() : tensor<3x8xf32>
  %o = linalg.generic {indexing_maps = [#m, #m, #m], iterator_types = ["parallel", "parallel"]} ins(%xe, %cos : tensor<3x8xf32>, tensor<3x8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<3x8xf32>
  %z = tensor.empty() : tensor<3x16xf32>
  %r = tensor.insert_slice %o into %z[0, 1] [3, 8] [1, 2] : tensor<3x8xf32> into tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// -----

// An insertion updates its destination in place: the slice's kernel must
// run after the destination's.
#m = affine_map<(s, d) -> (s, d)>
func.func @insert_before_destination(%x: tensor<3x8xf32>) -> tensor<3x16xf32> {
  %e = tensor.empty() : tensor<3x8xf32>
  %o = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x8xf32>) outs(%e : tensor<3x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<3x8xf32>
  %z = tensor.empty() : tensor<3x16xf32>
  %c = arith.constant 0.0 : f32
  %d = linalg.fill ins(%c : f32) outs(%z : tensor<3x16xf32>) -> tensor<3x16xf32>
  // expected-error @below {{'tensor.insert_slice' op has no systolic lowering: the op that makes the inserted slice writes it into the destination's buffer, and the destination is updated in place, but 'linalg.generic', which writes the slice, runs before 'linalg.fill', which writes the destination}}
  %r = tensor.insert_slice %o into %d[0, 8] [3, 8] [1, 1] : tensor<3x8xf32> into tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// -----

// The matmuls write their columns of the concatenation's buffer.
// CHECK-LABEL: systolic.program @concat_of_matmuls
// CHECK-SAME: buffers [#systolic.buffer<"arg0", arg 0, tensor<4x8xf32>>, #systolic.buffer<"arg1", arg 1, tensor<8x4xf32>>, #systolic.buffer<"result0", result 0, tensor<4x8xf32>>]
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 4 cols 4 -> 2[0] stride 8
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 4 cols 4 -> 2[4] stride 8
func.func @concat_of_matmuls(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.concat dim(1) %0, %1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// A part that is also returned would have to be written twice.
func.func @concat_part_returned(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> (tensor<4x8xf32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<4x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  // expected-error @below {{'tensor.concat' op has no systolic lowering: the op that makes each input writes its part of the concatenation's buffer, but it (made by 'accel.matmul') is also read elsewhere (a systolic program does not copy tensors)}}
  %r = tensor.concat dim(1) %0, %1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
  return %r, %1 : tensor<4x8xf32>, tensor<4x4xf32>
}

// -----

#m = affine_map<(s, d) -> (s, d)>
func.func @concat_rows(%x: tensor<3x4xf32>) -> tensor<6x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %o1 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  %o2 = linalg.generic {indexing_maps = [#m, #m], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<3x4xf32>
  // expected-error @below {{'tensor.concat' op has no systolic lowering: the kernels of a concatenation's inputs write their parts of its buffer, along the last dimension of static tensors}}
  %r = tensor.concat dim(0) %o1, %o2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}
