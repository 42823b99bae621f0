// Unfused attention chains run through the CPU pipeline, which fuses them
// (accel-fuse-attention), while the fp64 oracle evaluates the chain as
// written: fusing must not change what the chain computes. The chains that
// must not fuse run unfused and pass too.
// RUN: accel-run %s --repeat=0 --i1-zero-rows=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=5 | FileCheck %s
// RUN: accel-opt %s --accel-fuse-attention | FileCheck %s --check-prefix=CHECK-FUSED
// CHECK-FUSED-COUNT-3: accel.attention
// CHECK-FUSED-NOT: accel.attention
// CHECK-LABEL: @mul_select
// CHECK: PASS
// CHECK-LABEL: @div_add
// CHECK: PASS
// CHECK-LABEL: @mul_nomask
// CHECK: PASS
// CHECK-LABEL: @logits_reused
// CHECK: PASS
// CHECK-LABEL: @softmax_over_queries
// CHECK: PASS
// CHECK: accel-run: 5 of 5 functions passed

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
