// RUN: accel-opt %s -split-input-file --accel-cpu-transpose-rhs | FileCheck %s

// A (m, k) x (n, k) contraction reads a [K, N] transposed copy of B.
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BKN:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @transpose_b
// CHECK-SAME: (%[[A:.+]]: tensor<8x4xf32>, %[[B:.+]]: tensor<16x4xf32>, %[[C:.+]]: tensor<8x16xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[BT:.+]] = linalg.transpose ins(%[[B]] : tensor<16x4xf32>) outs(%[[E]] : tensor<4x16xf32>) permutation = [1, 0]
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$BKN]], #[[$C]]]{{.*}} ins(%[[A]], %[[BT]] : tensor<8x4xf32>, tensor<4x16xf32>)
func.func @transpose_b(%a: tensor<8x4xf32>, %b: tensor<16x4xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<8x4xf32>, tensor<16x4xf32>) outs(%c : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Batched, dynamic: the batch dimension stays in front.
// CHECK-LABEL: func @batched_dynamic
// CHECK: linalg.transpose ins(%{{.+}} : tensor<2x?x?xbf16>) outs(%{{.+}} : tensor<2x?x?xbf16>) permutation = [0, 2, 1]
func.func @batched_dynamic(%a: tensor<2x?x?xbf16>, %b: tensor<2x?x?xbf16>, %c: tensor<2x?x?xf32>) -> tensor<2x?x?xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
       ins(%a, %b : tensor<2x?x?xbf16>, tensor<2x?x?xbf16>) outs(%c : tensor<2x?x?xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x?x?xf32>
  return %0 : tensor<2x?x?xf32>
}

// -----

// B already [K, N]: untouched.
// CHECK-LABEL: func @plain
// CHECK-NOT: linalg.transpose
func.func @plain(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
