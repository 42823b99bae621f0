// RUN: accel-opt %s -split-input-file --accel-fuse-attention | FileCheck %s
// A frontend's causal mask (a constant, or a generic that compares the
// query and key indices) becomes the causal band: the mask is dropped and
// the kernels skip the blocks above the diagonal. What is no band is left.

// A constant -inf upper triangle, Sq = Skv: the default diagonal.
// CHECK-LABEL: func.func @constant_triangle
// CHECK: accel.attention causal ins(
// CHECK-NOT: mask(
// CHECK-SAME: outs(
func.func @constant_triangle(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<1x2x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>) mask(%m : tensor<4x4xf32>) outs(%e : tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// torch's triu of a full tensor of the lowest f32 (Hugging Face's mask), as
// an index-computed generic, with Skv = Sq + 4 (the default diagonal).
// CHECK-LABEL: func.func @generic_band
// CHECK-NOT: linalg.generic
// CHECK: accel.attention causal scale(2.500000e-01) ins(
// CHECK-NOT: mask(
func.func @generic_band(%q: tensor<1x1x8x16xf32>, %k: tensor<1x1x12x16xf32>, %v: tensor<1x1x12x16xf32>) -> tensor<1x1x8x16xf32> {
  %e0 = tensor.empty() : tensor<8x12xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e0 : tensor<8x12xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c4 = arith.constant 4 : index
    %lim = arith.addi %i, %c4 : index
    %keep = arith.cmpi ule, %j, %lim : index
    %zero = arith.constant 0.0 : f32
    %low = arith.constant -3.40282347E+38 : f32
    %x = arith.select %keep, %zero, %low : f32
    linalg.yield %x : f32
  } -> tensor<8x12xf32>
  %e = tensor.empty() : tensor<1x1x8x16xf32>
  %o = accel.attention scale(0.25) ins(%q, %k, %v : tensor<1x1x8x16xf32>, tensor<1x1x12x16xf32>, tensor<1x1x12x16xf32>) mask(%m : tensor<8x12xf32>) outs(%e : tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32>
  return %o : tensor<1x1x8x16xf32>
}

// -----

// Another diagonal than Skv - Sq (each query sees the keys up to its own
// index, of a longer cache): an explicit diagonal. An i1 mask (true keeps).
// CHECK-LABEL: func.func @explicit_diagonal
// CHECK: %[[D:.*]] = arith.constant 0 : index
// CHECK: accel.attention causal diagonal(%[[D]]) ins(
// CHECK-NOT: mask(
func.func @explicit_diagonal(%q: tensor<1x1x4x16xf16>, %k: tensor<1x1x8x16xf16>, %v: tensor<1x1x8x16xf16>) -> tensor<1x1x4x16xf32> {
  %e0 = tensor.empty() : tensor<1x1x4x8xi1>
  %m = linalg.generic {indexing_maps = [affine_map<(b, h, i, j) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%e0 : tensor<1x1x4x8xi1>) {
  ^bb0(%o: i1):
    %i = linalg.index 2 : index
    %j = linalg.index 3 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %keep = arith.cmpi sge, %ii, %jj : i64
    linalg.yield %keep : i1
  } -> tensor<1x1x4x8xi1>
  %e = tensor.empty() : tensor<1x1x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x1x4x16xf16>, tensor<1x1x8x16xf16>, tensor<1x1x8x16xf16>) mask(%m : tensor<1x1x4x8xi1>) outs(%e : tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// Not a band: one kept key above the diagonal (row 1 keeps key 3).
// CHECK-LABEL: func.func @not_a_band
// CHECK: accel.attention ins({{.*}}) mask(
func.func @not_a_band(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x4x16xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  %m = arith.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0.0], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<1x1x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) mask(%m : tensor<4x4xf32>) outs(%e : tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// Not a band: a finite bias (ALiBi-like), not a removal.
// CHECK-LABEL: func.func @bias
// CHECK: accel.attention ins({{.*}}) mask(
func.func @bias(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x4x16xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  %m = arith.constant dense<[[0.0, -1.0, -2.0, -3.0], [0.0, 0.0, -1.0, -2.0], [0.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %e = tensor.empty() : tensor<1x1x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>) mask(%m : tensor<4x4xf32>) outs(%e : tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// A finite removal (the lowest f32) with a row it removes wholly (Sq > Skv
// with the default diagonal): the mask gives that row a uniform softmax,
// the band 0; left as it is.
// CHECK-LABEL: func.func @finite_empty_row
// CHECK: accel.attention ins({{.*}}) mask(
func.func @finite_empty_row(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x2x16xf32>, %v: tensor<1x1x2x16xf32>) -> tensor<1x1x4x16xf32> {
  %m = arith.constant dense<[[-3.40282347E+38, -3.40282347E+38], [0.0, -3.40282347E+38], [0.0, 0.0], [0.0, 0.0]]> : tensor<4x2xf32>
  %e = tensor.empty() : tensor<1x1x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>) mask(%m : tensor<4x2xf32>) outs(%e : tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// The same with -inf: the wholly removed row gives 0 either way: a band
// with diagonal -2 (= Skv - Sq, the default).
// CHECK-LABEL: func.func @infinite_empty_row
// CHECK: accel.attention causal ins(
// CHECK-NOT: mask(
func.func @infinite_empty_row(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x2x16xf32>, %v: tensor<1x1x2x16xf32>) -> tensor<1x1x4x16xf32> {
  %m = arith.constant dense<[[0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000], [0.0, 0xFF800000], [0.0, 0.0]]> : tensor<4x2xf32>
  %e = tensor.empty() : tensor<1x1x4x16xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<1x1x4x16xf32>, tensor<1x1x2x16xf32>, tensor<1x1x2x16xf32>) mask(%m : tensor<4x2xf32>) outs(%e : tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}
