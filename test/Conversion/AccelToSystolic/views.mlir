// RUN: accel-opt %s --split-input-file --convert-accel-to-systolic --verify-diagnostics | FileCheck %s
// Reshapes, transposes and slices move no data on the systolic target:
// each is a view of its source's DRAM layout (SystolicLayout.h), and where
// a view cannot be read so (a merge of dimensions that are not contiguous,
// a returned view, a concatenation's part) the op that makes the source
// writes it in place.

// Multi-head attention on [S, H*D] projections. The heads are split by
// expand_shape + transpose: head h's Q rows are read at element h*16 with
// the projection's stride 32 (one K/V head: GQA). They are merged back by
// transpose + collapse_shape, which the source's layout cannot express:
// the attention writes head h's rows at column h*16 of a [16, 32] buffer
// (tmp0, stride 32) and the projection reads that contiguously.
// CHECK-LABEL: systolic.program @heads
// CHECK-SAME: #systolic.buffer<"result0", result 0, tensor<16x32xf32>>, #systolic.buffer<"tmp0", scratch 0, tensor<16x32xf32>>]
// CHECK: systolic.mvin 0[0] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 16
// CHECK: systolic.mvin 1[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16 transpose
// CHECK: systolic.mvin 2[0] stride 16 -> spad[{{[0-9]+}}] rows 16 cols 16
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 16 cols 16 -> 5[0] stride 32
// CHECK: systolic.mvin 0[16] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 16
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 16 cols 16 -> 5[16] stride 32
// CHECK: systolic.mvin 5[0] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 16
// CHECK: systolic.mvin 5[16] stride 32 -> spad[{{[0-9]+}}] rows 16 cols 16
// CHECK: systolic.mvout acc[{{[0-9]+}}] rows 16 cols 16 -> 4[0] stride 32
func.func @heads(%q: tensor<16x32xf32>, %k: tensor<16x16xf32>, %v: tensor<16x16xf32>, %wo: tensor<32x32xf32>) -> tensor<16x32xf32> {
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 2, 16] : tensor<16x32xf32> into tensor<16x2x16xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [16, 1, 16] : tensor<16x16xf32> into tensor<16x1x16xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [16, 1, 16] : tensor<16x16xf32> into tensor<16x1x16xf32>
  %qe = tensor.empty() : tensor<2x16x16xf32>
  %qt = linalg.transpose ins(%q3 : tensor<16x2x16xf32>) outs(%qe : tensor<2x16x16xf32>) permutation = [1, 0, 2]
  %ke = tensor.empty() : tensor<1x16x16xf32>
  %kt = linalg.transpose ins(%k3 : tensor<16x1x16xf32>) outs(%ke : tensor<1x16x16xf32>) permutation = [1, 0, 2]
  %vt = linalg.transpose ins(%v3 : tensor<16x1x16xf32>) outs(%ke : tensor<1x16x16xf32>) permutation = [1, 0, 2]
  %q4 = tensor.expand_shape %qt [[0, 1], [2], [3]] output_shape [1, 2, 16, 16] : tensor<2x16x16xf32> into tensor<1x2x16x16xf32>
  %k4 = tensor.expand_shape %kt [[0, 1], [2], [3]] output_shape [1, 1, 16, 16] : tensor<1x16x16xf32> into tensor<1x1x16x16xf32>
  %v4 = tensor.expand_shape %vt [[0, 1], [2], [3]] output_shape [1, 1, 16, 16] : tensor<1x16x16xf32> into tensor<1x1x16x16xf32>
  %oe = tensor.empty() : tensor<1x2x16x16xf32>
  %o = accel.attention causal ins(%q4, %k4, %v4 : tensor<1x2x16x16xf32>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) outs(%oe : tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %te = tensor.empty() : tensor<16x1x2x16xf32>
  %ot = linalg.transpose ins(%o : tensor<1x2x16x16xf32>) outs(%te : tensor<16x1x2x16xf32>) permutation = [2, 0, 1, 3]
  %oc = tensor.collapse_shape %ot [[0], [1, 2, 3]] : tensor<16x1x2x16xf32> into tensor<16x32xf32>
  %pe = tensor.empty() : tensor<16x32xf32>
  %p = accel.matmul transpose_b ins(%oc, %wo : tensor<16x32xf32>, tensor<32x32xf32>) outs(%pe : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %p : tensor<16x32xf32>
}

// -----

// A returned transpose: the matmul stores C transposed into the result.
// CHECK-LABEL: systolic.program @returned_transpose
// CHECK-SAME: buffers [#systolic.buffer<"arg0", arg 0, tensor<8x16xf32>>, #systolic.buffer<"arg1", arg 1, tensor<16x4xf32>>, #systolic.buffer<"result0", result 0, tensor<4x8xf32>>]
// CHECK: systolic.mvout acc[0] rows 8 cols 4 -> 2[0] stride 8 transpose
func.func @returned_transpose(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<4x8xf32> {
  %c = tensor.empty() : tensor<8x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  %t = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.transpose ins(%0 : tensor<8x4xf32>) outs(%t : tensor<4x8xf32>) permutation = [1, 0]
  return %1 : tensor<4x8xf32>
}

// -----

// A matmul reads a transposed argument through the DMA's transpose, and a
// rank-reducing slice of a batch (element 2 * 8 * 4 = 64 on).
// CHECK-LABEL: systolic.program @transposed_and_sliced
// CHECK: systolic.mvin 0[0] stride 8 -> spad[{{[0-9]+}}] rows 8 cols 8 transpose
// CHECK: systolic.mvin 1[64] stride 4 -> spad[{{[0-9]+}}] rows 8 cols 4
func.func @transposed_and_sliced(%a: tensor<8x8xf32>, %b: tensor<3x8x4xf32>) -> tensor<8x4xf32> {
  %t = tensor.empty() : tensor<8x8xf32>
  %at = linalg.transpose ins(%a : tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) permutation = [1, 0]
  %b2 = tensor.extract_slice %b[2, 0, 0] [1, 8, 4] [1, 1, 1] : tensor<3x8x4xf32> to tensor<8x4xf32>
  %c = tensor.empty() : tensor<8x4xf32>
  %0 = accel.matmul ins(%at, %b2 : tensor<8x8xf32>, tensor<8x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @returned_view_of_argument(%x: tensor<4x8xf32>, %b: tensor<8x8xf32>) -> (tensor<32xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %m = accel.matmul ins(%x, %b : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tensor.empty() : tensor<8x4xf32>
  %xt = linalg.transpose ins(%x : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>) permutation = [1, 0]
  // expected-error @below {{'tensor.collapse_shape' op has no systolic lowering: the function returns it, so the op that makes its source must write it into a buffer of its own, but it is a function argument (a systolic program does not copy tensors)}}
  %c = tensor.collapse_shape %xt [[0, 1]] : tensor<8x4xf32> into tensor<32xf32>
  return %c, %m : tensor<32xf32>, tensor<4x8xf32>
}

// -----

func.func @merge_of_a_value_read_twice(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<64xf32>) {
  %c = tensor.empty() : tensor<8x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.transpose ins(%0 : tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) permutation = [1, 0]
  // expected-error @below {{'tensor.collapse_shape' op has no systolic lowering: it merges dimensions that are not contiguous in its source's layout, so the op that makes its source must write it into a buffer of its own, but it (made by 'accel.matmul') is also read elsewhere (a systolic program does not copy tensors)}}
  %2 = tensor.collapse_shape %1 [[0, 1]] : tensor<8x8xf32> into tensor<64xf32>
  %e = tensor.empty() : tensor<64xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%2 : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  return %0, %3 : tensor<8x8xf32>, tensor<64xf32>
}

// -----

func.func @softmax_placed(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %s = accel.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %t = tensor.empty() : tensor<8x4xf32>
  // expected-error @below {{'linalg.transpose' op has no systolic lowering: the function returns it, so the op that makes its source must write it into a buffer of its own, but it is made by 'accel.softmax', which writes only a buffer of its own (only matmuls, attentions and elementwise kernels write in place; a systolic program does not copy tensors)}}
  %st = linalg.transpose ins(%s : tensor<4x8xf32>) outs(%t : tensor<8x4xf32>) permutation = [1, 0]
  return %st : tensor<8x4xf32>
}

// -----

func.func @returned_slice(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %c = tensor.empty() : tensor<8x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @below {{'tensor.extract_slice' op has no systolic lowering: the function returns it, and a slice's source cannot be written into a buffer of the slice's own (a systolic program does not copy tensors)}}
  %1 = tensor.extract_slice %0[0, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// Neither of A's last two dimensions is contiguous: [2, 4, 8] read as
// [8, 2, 4] has strides [1, 32, 8].
func.func @both_strided(%a: tensor<2x4x8xf32>, %b: tensor<8x4x4xf32>) -> tensor<8x2x4xf32> {
  %t = tensor.empty() : tensor<8x2x4xf32>
  %at = linalg.transpose ins(%a : tensor<2x4x8xf32>) outs(%t : tensor<8x2x4xf32>) permutation = [2, 0, 1]
  %c = tensor.empty() : tensor<8x2x4xf32>
  // expected-error @below {{'accel.matmul' op reads or writes its A through a view whose last two dimensions are both strided (the DMA moves rows or columns of contiguous elements)}}
  %0 = accel.matmul ins(%at, %b : tensor<8x2x4xf32>, tensor<8x4x4xf32>) outs(%c : tensor<8x2x4xf32>) -> tensor<8x2x4xf32>
  return %0 : tensor<8x2x4xf32>
}

// -----

// Rows [2, 4] at strides [8, 16] do not flatten into one stride.
func.func @softmax_rows(%x: tensor<4x2x8xf32>) -> tensor<2x4x8xf32> {
  %t = tensor.empty() : tensor<2x4x8xf32>
  %xt = linalg.transpose ins(%x : tensor<4x2x8xf32>) outs(%t : tensor<2x4x8xf32>) permutation = [1, 0, 2]
  // expected-error @below {{'accel.softmax' op reads its input through a view whose dimensions do not flatten into rows of contiguous elements at one stride}}
  %s = accel.softmax dimension(2) ins(%xt : tensor<2x4x8xf32>) outs(%t : tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %s : tensor<2x4x8xf32>
}

// -----

// A mask read transposed: its keys are strided, not rows the DMA moves.
func.func @mask_transposed(%q: tensor<1x1x8x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>, %m: tensor<8x8xf32>) -> tensor<1x1x8x16xf32> {
  %t = tensor.empty() : tensor<8x8xf32>
  %mt = linalg.transpose ins(%m : tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<1x1x8x16xf32>
  // expected-error @below {{'accel.attention' op reads its mask through a view whose keys are strided (the DMA moves rows of contiguous elements)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) mask(%mt : tensor<8x8xf32>) outs(%o : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return %0 : tensor<1x1x8x16xf32>
}

// -----

// The ReLU is applied to the matmul's C blocks, so it runs (and writes its
// slice) where the matmul does, before the fill that writes the
// destination it is inserted into.
#id2 = affine_map<(i, j) -> (i, j)>
func.func @epilogue_before_destination(%a: tensor<32x16xf32>, %b: tensor<16x16xf32>) -> tensor<32x32xf32> {
  %e0 = tensor.empty() : tensor<32x16xf32>
  %c = accel.matmul ins(%a, %b : tensor<32x16xf32>, tensor<16x16xf32>) outs(%e0 : tensor<32x16xf32>) -> tensor<32x16xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<32x16xf32>) outs(%e0 : tensor<32x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<32x16xf32>
  // expected-error @below {{'tensor.insert_slice' op has no systolic lowering: the destination is updated in place, but 'linalg.generic', which writes the slice, is applied to a matmul's C blocks and so runs before 'linalg.fill', which writes the destination}}
  %o = tensor.insert_slice %r into %z[0, 0] [32, 16] [1, 1] : tensor<32x16xf32> into tensor<32x32xf32>
  return %o : tensor<32x32xf32>
}

// -----

// A batch of one: the epilogue's loops drop the unit batch and still match
// C's blocks, so it is applied to them (C never reaches DRAM).
// CHECK-LABEL: systolic.program @batch_of_one_epilogue
// CHECK-SAME: buffers [#systolic.buffer<"arg0", arg 0, tensor<1x32x16xf32>>, #systolic.buffer<"arg1", arg 1, tensor<1x16x16xf32>>, #systolic.buffer<"result0", result 0, tensor<1x32x16xf32>>]
// CHECK: systolic.vector max
#id3 = affine_map<(b, i, j) -> (b, i, j)>
func.func @batch_of_one_epilogue(%a: tensor<1x32x16xf32>, %b: tensor<1x16x16xf32>) -> tensor<1x32x16xf32> {
  %e0 = tensor.empty() : tensor<1x32x16xf32>
  %c = accel.matmul ins(%a, %b : tensor<1x32x16xf32>, tensor<1x16x16xf32>) outs(%e0 : tensor<1x32x16xf32>) -> tensor<1x32x16xf32>
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x16xf32>) outs(%e0 : tensor<1x32x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x32x16xf32>
  return %r : tensor<1x32x16xf32>
}
