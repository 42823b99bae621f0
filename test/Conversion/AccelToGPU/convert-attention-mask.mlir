// A mask is one more kernel parameter (after V, before O), read per logit
// from global memory with its broadcast dimensions at index 0 and the row
// and key clamped into the tensor; an i1 mask joins the keep test, a float
// one is added to the scaled logits (times log2(e)).
// RUN: accel-opt %s --convert-accel-to-gpu | FileCheck %s

// CHECK-LABEL: gpu.func @bool_0
// CHECK-SAME: (%{{.*}}: memref<1x2x77x64xf16>, %{{.*}}: memref<1x2x130x64xf16>, %{{.*}}: memref<1x2x130x64xf16>, %[[M:.*]]: memref<2x77x130xi1>, %{{.*}}: memref<1x2x77x64xf32>)
// CHECK-SAME: access = ["in", "in", "in", "in", "out"], args = ["arg0", "arg1", "arg2", "arg3", "result0"]
// CHECK-SAME: mask = "bool"
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = arith.minsi %{{.*}}, %c76 : index
// CHECK: %[[COL:.*]] = arith.minsi %{{.*}}, %c129 : index
// CHECK: %[[KEEP:.*]] = memref.load %[[M]][%{{.*}}, %[[ROW]], %[[COL]]] : memref<2x77x130xi1>
// CHECK: arith.andi %{{.*}}, %[[KEEP]] : i1
// CHECK: arith.select
func.func @bool(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>, %m: tensor<2x77x130xi1>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) mask(%m : tensor<2x77x130xi1>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}

// A [1, 1, 1, Skv] bf16 bias: every index but the key's is 0.
// CHECK-LABEL: gpu.func @additive_0
// CHECK-SAME: mask = "additive"
// CHECK: %[[B:.*]] = memref.load %{{.*}}[%c0, %c0, %c0, %{{.*}}] : memref<1x1x1x200xbf16>
// CHECK: %[[F:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[L:.*]] = arith.mulf %[[F]], %cst{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %[[L]] : f32
func.func @additive(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
