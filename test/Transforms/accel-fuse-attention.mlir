// RUN: accel-opt %s -split-input-file --accel-fuse-attention --canonicalize | FileCheck %s

// Positive: matmul(Q, Kt) -> constant scale -> [mask] -> softmax(keys) ->
// matmul(P, V) becomes one accel.attention with the scale and the mask.

// -----

// CHECK-LABEL: func @mul_select
// CHECK: accel.attention scale(3.500000e-01) ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>) mask(%{{.+}} : tensor<1x2x16x24xi1>)
// CHECK-NOT: accel.softmax
// CHECK-NOT: accel.matmul
func.func @mul_select(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>, %m: tensor<1x2x16x24xi1>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1x2x16x24xf32>
  %sm = arith.select %m, %ss, %ninf : tensor<1x2x16x24xi1>, tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%sm : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// CHECK-LABEL: func @div_add
// CHECK: accel.attention scale(4.000000e-01) {{.*}} mask(%{{.+}} : tensor<1x2x16x24xf32>)
// CHECK-NOT: accel.softmax
func.func @div_add(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>, %m: tensor<1x2x16x24xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<2.5> : tensor<1x2x16x24xf32>
  %ss = arith.divf %s, %c : tensor<1x2x16x24xf32>
  %sm = arith.addf %ss, %m : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%sm : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// CHECK-LABEL: func @mul_nomask
// CHECK: accel.attention scale(3.500000e-01) ins(
// CHECK-NOT: mask(
// CHECK-NOT: accel.softmax
func.func @mul_nomask(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// Negative: the logits have another user (they are returned).
// CHECK-LABEL: func @logits_reused
// CHECK-NOT: accel.attention
// CHECK: accel.softmax
func.func @logits_reused(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> (tensor<1x2x16x8xf32>, tensor<1x2x16x24xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o, %s : tensor<1x2x16x8xf32>, tensor<1x2x16x24xf32>
}

// -----

// Negative: the softmax normalises over the queries, not the keys.
// CHECK-LABEL: func @softmax_over_queries
// CHECK-NOT: accel.attention
// CHECK: accel.softmax dimension(2)
func.func @softmax_over_queries(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(2) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// Negative: the scale is not a constant.
// CHECK-LABEL: func @scale_not_constant
// CHECK-NOT: accel.attention
// CHECK: arith.mulf
func.func @scale_not_constant(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>, %c: tensor<1x2x16x24xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// Negative: K given as [D, Skv] (no transpose_b): not Q·Kᵀ of the op's K.
// CHECK-LABEL: func @k_not_transposed
// CHECK-NOT: accel.attention
// CHECK: accel.softmax
func.func @k_not_transposed(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x8x24xf32>, %v: tensor<1x2x24x8xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x8x24xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

// Negative: Q·Kᵀ accumulates into an existing tensor.
// CHECK-LABEL: func @qk_accumulates
// CHECK-NOT: accel.attention
// CHECK: accel.matmul transpose_b accumulate
func.func @qk_accumulates(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> (tensor<1x2x16x8xf32>) {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %z = arith.constant 0.0 : f32
  %e1f = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b accumulate ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1f : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<1x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}
