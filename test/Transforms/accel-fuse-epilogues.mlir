// RUN: accel-opt %s -split-input-file --accel-fuse-epilogues | FileCheck %s

// torch-mlir's Linear + GELU: a bias generic and a GELU generic, each into
// a fresh tensor, become one generic that updates the matmul's result in
// place, the accumulator read through the output argument.
// CHECK-DAG: #[[$COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @bias_gelu
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<16xf32>
// CHECK: %[[MM:.+]] = accel.matmul
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$ID]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[BIAS]] : tensor<16xf32>) outs(%[[MM]] : tensor<8x16xf32>)
// CHECK-NEXT: ^bb0(%[[B:.+]]: f32, %[[ACC:.+]]: f32):
// CHECK: %[[X:.+]] = arith.addf %[[ACC]], %[[B]] : f32
// CHECK: math.erf
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
func.func @bias_gelu(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<8x16xf32> {
  %mm = accel.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<8x16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %erf = math.erf %x : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %x, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %g : tensor<8x16xf32>
}

// -----

// The accumulator used twice (x * x): both inputs become the output
// argument.
// CHECK-LABEL: func @square
// CHECK: %[[MM:.+]] = accel.matmul
// CHECK: linalg.generic {{.*}} outs(%[[MM]] : tensor<8x16xf32>)
// CHECK-NEXT: ^bb0(%[[ACC:.+]]: f32):
// CHECK-NEXT: arith.mulf %[[ACC]], %[[ACC]] : f32
func.func @square(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %mm = accel.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %mm : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    linalg.yield %p : f32
  } -> tensor<8x16xf32>
  return %sq : tensor<8x16xf32>
}

// -----

// A chain that ends in a cast to bf16 is fused into one generic but stays
// out of place (its result has another type).
// CHECK-LABEL: func @bias_cast
// CHECK: %[[MM:.+]] = accel.matmul
// CHECK: %[[E:.+]] = tensor.empty() : tensor<8x16xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<8x16xf32>, tensor<16xf32>) outs(%[[E]] : tensor<8x16xbf16>)
// CHECK: arith.addf
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
func.func @bias_cast(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>, %bias: tensor<16xf32>) -> tensor<8x16xbf16> {
  %mm = accel.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e2 = tensor.empty() : tensor<8x16xbf16>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<8x16xf32>) outs(%e2 : tensor<8x16xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %r = arith.truncf %x : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<8x16xbf16>
  return %t : tensor<8x16xbf16>
}

// -----

// The matmul's result has another user: nothing changes.
// CHECK-LABEL: func @two_users
// CHECK: %[[MM:.+]] = accel.matmul
// CHECK: %[[E:.+]] = tensor.empty()
// CHECK: linalg.generic {{.*}} ins(%[[MM]], %{{.+}} : tensor<8x16xf32>, tensor<16xf32>) outs(%[[E]] : tensor<8x16xf32>)
func.func @two_users(%a: tensor<8x4xf32>, %b: tensor<4x16xf32>, %c: tensor<8x16xf32>, %bias: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %mm = accel.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<8x16xf32>, tensor<16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %mm, %biased : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A transposed read of the result is not elementwise in place: unchanged.
// CHECK-LABEL: func @transposed_read
// CHECK: %[[MM:.+]] = accel.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<16x16xf32>) outs(%{{.+}} : tensor<16x16xf32>)
func.func @transposed_read(%a: tensor<16x4xf32>, %b: tensor<4x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %mm = accel.matmul ins(%a, %b : tensor<16x4xf32>, tensor<4x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  %e = tensor.empty() : tensor<16x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<16x16xf32>
  return %t : tensor<16x16xf32>
}
