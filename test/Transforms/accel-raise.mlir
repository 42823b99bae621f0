// RUN: accel-opt %s -split-input-file --accel-raise | FileCheck %s

// linalg.matmul into a zero fill computes C = A·B: a non-accumulating
// accel.matmul writing the fill's destination.
// CHECK-LABEL: func @matmul_zero_fill
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xf32>, %[[B:.+]]: tensor<8x16xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[R:.+]] = accel.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NOT: linalg.matmul
// CHECK: return %[[R]]
func.func @matmul_zero_fill(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Any other init is accumulated into.
// CHECK-LABEL: func @matmul_accumulate
// CHECK: %[[F:.+]] = linalg.fill
// CHECK: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[F]] : tensor<4x16xf32>)
func.func @matmul_accumulate(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %c = linalg.fill ins(%one : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// B transposed through indexing_maps (the old matmul_transpose_b).
// CHECK-LABEL: func @matmul_transpose_b
// CHECK: accel.matmul transpose_b accumulate ins(%{{.+}}, %{{.+}} : tensor<4x8xbf16>, tensor<16x8xbf16>) outs(%{{.+}} : tensor<4x16xf32>)
func.func @matmul_transpose_b(%a: tensor<4x8xbf16>, %b: tensor<16x8xbf16>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<4x8xbf16>, tensor<16x8xbf16>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// batch_matmul, i8 into i32.
// CHECK-LABEL: func @batch_matmul_i8
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%{{.+}} : tensor<2x4x16xi32>)
func.func @batch_matmul_i8(%a: tensor<2x4x8xi8>, %b: tensor<2x8x16xi8>) -> tensor<2x4x16xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<2x4x16xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<2x4x16xi32>) -> tensor<2x4x16xi32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xi8>, tensor<2x8x16xi8>) outs(%c : tensor<2x4x16xi32>) -> tensor<2x4x16xi32>
  return %0 : tensor<2x4x16xi32>
}

// -----

// tosa.matmul with zero zero-points, dynamic batch: into a tensor.empty
// sized from the operands.
// CHECK-LABEL: func @tosa_matmul
// CHECK-SAME: (%[[A:.+]]: tensor<?x4x8xf32>, %[[B:.+]]: tensor<?x8x16xf32>)
// CHECK: %[[N:.+]] = tensor.dim %[[A]], %{{.+}} : tensor<?x4x8xf32>
// CHECK: %[[E:.+]] = tensor.empty(%[[N]]) : tensor<?x4x16xf32>
// CHECK: accel.matmul ins(%[[A]], %[[B]] : tensor<?x4x8xf32>, tensor<?x8x16xf32>) outs(%[[E]] : tensor<?x4x16xf32>)
// CHECK-NOT: tosa.matmul
func.func @tosa_matmul(%a: tensor<?x4x8xf32>, %b: tensor<?x8x16xf32>) -> tensor<?x4x16xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %0 = tosa.matmul %a, %b, %zp, %zp : (tensor<?x4x8xf32>, tensor<?x8x16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x4x16xf32>
  return %0 : tensor<?x4x16xf32>
}

// -----

// Negative cases: left as they are.

// A transposed: accel.matmul has no transpose_a.
// CHECK-LABEL: func @transposed_a
// CHECK: linalg.matmul
// CHECK-NOT: accel.matmul
func.func @transposed_a(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<8x4xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// i8 into f32: not in accel.matmul's table (i8 accumulates in i32).
// CHECK-LABEL: func @unsupported_types
// CHECK: linalg.matmul
// CHECK-NOT: accel.matmul
func.func @unsupported_types(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Unsigned extension of i8 operands: accel's i8 is signed.
// CHECK-LABEL: func @unsigned_cast
// CHECK: linalg.matmul
// CHECK-NOT: accel.matmul
func.func @unsigned_cast(%a: tensor<4x8xi8>, %b: tensor<8x16xi8>, %c: tensor<4x16xi32>) -> tensor<4x16xi32> {
  %0 = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<4x8xi8>, tensor<8x16xi8>) outs(%c : tensor<4x16xi32>) -> tensor<4x16xi32>
  return %0 : tensor<4x16xi32>
}

// -----

// Buffers: accel ops are on tensors.
// CHECK-LABEL: func @memrefs
// CHECK: linalg.matmul
// CHECK-NOT: accel.matmul
func.func @memrefs(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// Quantized tosa.matmul with a non-zero zero point: accel has no zero points.
// CHECK-LABEL: func @tosa_zero_point
// CHECK: tosa.matmul
// CHECK-NOT: accel.matmul
func.func @tosa_zero_point(%a: tensor<1x4x8xi8>, %b: tensor<1x8x16xi8>) -> tensor<1x4x16xi32> {
  %azp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.matmul %a, %b, %azp, %bzp : (tensor<1x4x8xi8>, tensor<1x8x16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x16xi32>
  return %0 : tensor<1x4x16xi32>
}

// -----

// linalg.softmax on tensors becomes accel.softmax over the same dimension,
// writing the same init.
// CHECK-LABEL: func @softmax_dim0
// CHECK-SAME: (%[[X:.+]]: tensor<9x5x33xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<9x5x33xf32>
// CHECK: %[[R:.+]] = accel.softmax dimension(0) ins(%[[X]] : tensor<9x5x33xf32>) outs(%[[E]] : tensor<9x5x33xf32>) -> tensor<9x5x33xf32>
// CHECK-NOT: linalg.softmax
// CHECK: return %[[R]]
func.func @softmax_dim0(%x: tensor<9x5x33xf32>) -> tensor<9x5x33xf32> {
  %e = tensor.empty() : tensor<9x5x33xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<9x5x33xf32>) outs(%e : tensor<9x5x33xf32>) -> tensor<9x5x33xf32>
  return %y : tensor<9x5x33xf32>
}

// -----

// Over the last dimension, in f16, with unknown sizes.
// CHECK-LABEL: func @softmax_last_dynamic
// CHECK: accel.softmax dimension(2) ins(%{{.+}} : tensor<?x4x?xf16>) outs(%{{.+}} : tensor<?x4x?xf16>) -> tensor<?x4x?xf16>
// CHECK-NOT: linalg.softmax
func.func @softmax_last_dynamic(%x: tensor<?x4x?xf16>, %init: tensor<?x4x?xf16>) -> tensor<?x4x?xf16> {
  %y = linalg.softmax dimension(2) ins(%x : tensor<?x4x?xf16>) outs(%init : tensor<?x4x?xf16>) -> tensor<?x4x?xf16>
  return %y : tensor<?x4x?xf16>
}

// -----

// f64 is not an accel.softmax element type: left alone (the CPU pipeline
// decomposes it in convert-accel-to-linalg).
// CHECK-LABEL: func @softmax_f64
// CHECK: linalg.softmax dimension(1)
// CHECK-NOT: accel.softmax
func.func @softmax_f64(%x: tensor<4x8xf64>) -> tensor<4x8xf64> {
  %e = tensor.empty() : tensor<4x8xf64>
  %y = linalg.softmax dimension(1) ins(%x : tensor<4x8xf64>) outs(%e : tensor<4x8xf64>) -> tensor<4x8xf64>
  return %y : tensor<4x8xf64>
}

// -----

// Buffers: accel ops are on tensors.
// CHECK-LABEL: func @softmax_memrefs
// CHECK: linalg.softmax
// CHECK-NOT: accel.softmax
func.func @softmax_memrefs(%x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

// B a linalg.transpose of W [N, K] (torch-mlir's nn.Linear: matmul(x,
// t(W))): the op reads W with transpose_b, and the transpose goes.
// CHECK-LABEL: func @matmul_of_transposed_weight
// CHECK-SAME: (%[[X:.+]]: tensor<4x8xf32>, %[[W:.+]]: tensor<16x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: accel.matmul transpose_b ins(%[[X]], %[[W]] : tensor<4x8xf32>, tensor<16x8xf32>) outs(%{{.+}} : tensor<4x16xf32>)
func.func @matmul_of_transposed_weight(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %c = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batched: the transpose swaps the last two dimensions and keeps the batch.
// A transpose with another user stays for it; the op still reads W.
// CHECK-LABEL: func @batch_matmul_of_transposed_weight
// CHECK-SAME: (%[[X:.+]]: tensor<2x4x8xbf16>, %[[W:.+]]: tensor<2x16x8xbf16>, %{{.+}}: tensor<2x4x16xf32>)
// CHECK: %[[WT:.+]] = linalg.transpose ins(%[[W]]
// CHECK: accel.matmul transpose_b accumulate ins(%[[X]], %[[W]] : tensor<2x4x8xbf16>, tensor<2x16x8xbf16>)
// CHECK: return %{{.+}}, %[[WT]]
func.func @batch_matmul_of_transposed_weight(%x: tensor<2x4x8xbf16>, %w: tensor<2x16x8xbf16>, %c: tensor<2x4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x8x16xbf16>) {
  %e = tensor.empty() : tensor<2x8x16xbf16>
  %wt = linalg.transpose ins(%w : tensor<2x16x8xbf16>) outs(%e : tensor<2x8x16xbf16>) permutation = [0, 2, 1]
  %0 = linalg.batch_matmul ins(%x, %wt : tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0, %wt : tensor<2x4x16xf32>, tensor<2x8x16xbf16>
}

// -----

// Transposed twice (the transpose, then maps reading B as (n, k)): B as
// [K, N] again. A transpose of other dimensions is not folded.
// CHECK-LABEL: func @transposed_twice
// CHECK-NOT: linalg.transpose
// CHECK: accel.matmul accumulate ins(%{{.+}}, %arg1 : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK-LABEL: func @batch_dims_transposed
// CHECK: linalg.transpose
// CHECK: accel.matmul accumulate ins
func.func @transposed_twice(%x: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %e = tensor.empty() : tensor<16x8xf32>
  %bt = linalg.transpose ins(%b : tensor<8x16xf32>) outs(%e : tensor<16x8xf32>) permutation = [1, 0]
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
                     ins(%x, %bt : tensor<4x8xf32>, tensor<16x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
func.func @batch_dims_transposed(%x: tensor<2x4x8xf32>, %b: tensor<8x2x16xf32>, %c: tensor<2x4x16xf32>) -> tensor<2x4x16xf32> {
  %e = tensor.empty() : tensor<2x8x16xf32>
  %bt = linalg.transpose ins(%b : tensor<8x2x16xf32>) outs(%e : tensor<2x8x16xf32>) permutation = [1, 0, 2]
  %0 = linalg.batch_matmul ins(%x, %bt : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%c : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}
