// Reshapes, transposes and slices on the systolic target (views of their
// source's DRAM layout, or written in place by the op that makes the
// source: SystolicLayout.h), against the fp64 oracle on three machines:
//  - @heads: multi-head GQA attention on [S, H*D] projections (S = 24, a
//    last block of 8 rows), the heads split by expand_shape + transpose
//    and merged by transpose + collapse_shape before the output
//    projection (the attention writes its heads into the merged buffer);
//  - @returned_transpose: a matmul that stores C transposed into the
//    result;
//  - @transposed_and_sliced: a transposed argument and a rank-reducing
//    slice of a batch as matmul operands;
//  - @fused_projections: two matmuls writing their columns of one
//    concatenation, then a bias + ReLU on a slice of it;
//  - @insert_into_filled: a stride-2 insertion into a filled tensor.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="dataflow=os" | FileCheck %s
// CHECK: accel-run: 5 of 5 functions passed

func.func @heads(%q: tensor<24x64xf32>, %k: tensor<24x32xf32>, %v: tensor<24x32xf32>, %wo: tensor<64x64xf32>) -> tensor<24x64xf32> {
  %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [24, 4, 16] : tensor<24x64xf32> into tensor<24x4x16xf32>
  %k3 = tensor.expand_shape %k [[0], [1, 2]] output_shape [24, 2, 16] : tensor<24x32xf32> into tensor<24x2x16xf32>
  %v3 = tensor.expand_shape %v [[0], [1, 2]] output_shape [24, 2, 16] : tensor<24x32xf32> into tensor<24x2x16xf32>
  %qe = tensor.empty() : tensor<4x24x16xf32>
  %qt = linalg.transpose ins(%q3 : tensor<24x4x16xf32>) outs(%qe : tensor<4x24x16xf32>) permutation = [1, 0, 2]
  %ke = tensor.empty() : tensor<2x24x16xf32>
  %kt = linalg.transpose ins(%k3 : tensor<24x2x16xf32>) outs(%ke : tensor<2x24x16xf32>) permutation = [1, 0, 2]
  %vt = linalg.transpose ins(%v3 : tensor<24x2x16xf32>) outs(%ke : tensor<2x24x16xf32>) permutation = [1, 0, 2]
  %q4 = tensor.expand_shape %qt [[0, 1], [2], [3]] output_shape [1, 4, 24, 16] : tensor<4x24x16xf32> into tensor<1x4x24x16xf32>
  %k4 = tensor.expand_shape %kt [[0, 1], [2], [3]] output_shape [1, 2, 24, 16] : tensor<2x24x16xf32> into tensor<1x2x24x16xf32>
  %v4 = tensor.expand_shape %vt [[0, 1], [2], [3]] output_shape [1, 2, 24, 16] : tensor<2x24x16xf32> into tensor<1x2x24x16xf32>
  %oe = tensor.empty() : tensor<1x4x24x16xf32>
  %o = accel.attention causal ins(%q4, %k4, %v4 : tensor<1x4x24x16xf32>, tensor<1x2x24x16xf32>, tensor<1x2x24x16xf32>) outs(%oe : tensor<1x4x24x16xf32>) -> tensor<1x4x24x16xf32>
  %te = tensor.empty() : tensor<24x1x4x16xf32>
  %ot = linalg.transpose ins(%o : tensor<1x4x24x16xf32>) outs(%te : tensor<24x1x4x16xf32>) permutation = [2, 0, 1, 3]
  %oc = tensor.collapse_shape %ot [[0], [1, 2, 3]] : tensor<24x1x4x16xf32> into tensor<24x64xf32>
  %pe = tensor.empty() : tensor<24x64xf32>
  %p = accel.matmul transpose_b ins(%oc, %wo : tensor<24x64xf32>, tensor<64x64xf32>) outs(%pe : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %p : tensor<24x64xf32>
}

func.func @returned_transpose(%a: tensor<20x36xf32>, %b: tensor<36x12xf32>) -> tensor<12x20xf32> {
  %c = tensor.empty() : tensor<20x12xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x36xf32>, tensor<36x12xf32>) outs(%c : tensor<20x12xf32>) -> tensor<20x12xf32>
  %t = tensor.empty() : tensor<12x20xf32>
  %1 = linalg.transpose ins(%0 : tensor<20x12xf32>) outs(%t : tensor<12x20xf32>) permutation = [1, 0]
  return %1 : tensor<12x20xf32>
}

func.func @transposed_and_sliced(%a: tensor<24x20xf32>, %b: tensor<3x24x10xf32>) -> tensor<20x10xf32> {
  %t = tensor.empty() : tensor<20x24xf32>
  %at = linalg.transpose ins(%a : tensor<24x20xf32>) outs(%t : tensor<20x24xf32>) permutation = [1, 0]
  %b2 = tensor.extract_slice %b[2, 0, 0] [1, 24, 10] [1, 1, 1] : tensor<3x24x10xf32> to tensor<24x10xf32>
  %c = tensor.empty() : tensor<20x10xf32>
  %0 = accel.matmul ins(%at, %b2 : tensor<20x24xf32>, tensor<24x10xf32>) outs(%c : tensor<20x10xf32>) -> tensor<20x10xf32>
  return %0 : tensor<20x10xf32>
}

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
func.func @fused_projections(%x: tensor<18x32xf32>, %wa: tensor<32x24xf32>, %wb: tensor<32x40xf32>, %bias: tensor<40xf32>) -> tensor<18x40xf32> {
  %ea = tensor.empty() : tensor<18x24xf32>
  %a = accel.matmul ins(%x, %wa : tensor<18x32xf32>, tensor<32x24xf32>) outs(%ea : tensor<18x24xf32>) -> tensor<18x24xf32>
  %eb = tensor.empty() : tensor<18x40xf32>
  %b = accel.matmul ins(%x, %wb : tensor<18x32xf32>, tensor<32x40xf32>) outs(%eb : tensor<18x40xf32>) -> tensor<18x40xf32>
  %cat = tensor.concat dim(1) %a, %b : (tensor<18x24xf32>, tensor<18x40xf32>) -> tensor<18x64xf32>
  %s = tensor.extract_slice %cat[0, 20] [18, 40] [1, 1] : tensor<18x64xf32> to tensor<18x40xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%s, %bias : tensor<18x40xf32>, tensor<40xf32>) outs(%eb : tensor<18x40xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %y = arith.addf %in, %bb : f32
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %y, %z : f32
    linalg.yield %m : f32
  } -> tensor<18x40xf32>
  return %r : tensor<18x40xf32>
}

// An insertion into a filled destination: the fill writes the buffer, the
// slice's kernel (after it) its columns 4, 6, .., 18 of rows 1 .. 5.
#id2 = affine_map<(i, j) -> (i, j)>
func.func @insert_into_filled(%x: tensor<5x8xf32>) -> tensor<7x24xf32> {
  %z = tensor.empty() : tensor<7x24xf32>
  %c = arith.constant 0.5 : f32
  %d = linalg.fill ins(%c : f32) outs(%z : tensor<7x24xf32>) -> tensor<7x24xf32>
  %e = tensor.empty() : tensor<5x8xf32>
  %o = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<5x8xf32>) outs(%e : tensor<5x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<5x8xf32>
  %r = tensor.insert_slice %o into %d[1, 4] [5, 8] [1, 2] : tensor<5x8xf32> into tensor<7x24xf32>
  return %r : tensor<7x24xf32>
}
