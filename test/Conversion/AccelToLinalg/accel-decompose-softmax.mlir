// RUN: accel-opt %s --accel-decompose-softmax | FileCheck %s

// accel.softmax becomes the reference lowering's three generics (a max from
// -inf, a sum of exp(x - max) with the max of an all -inf row taken as 0,
// the quotient with 0 where the sum is 0); other accel ops stay.

// CHECK-LABEL: func.func @softmax_and_matmul
// CHECK-NOT: accel.softmax
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf oeq
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.truncf {{.*}} to bf16
// CHECK: accel.matmul
func.func @softmax_and_matmul(%x: tensor<4x64xbf16>, %a: tensor<16x16xf16>, %b: tensor<16x16xf16>) -> (tensor<4x64xbf16>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<4x64xbf16>
  %y = accel.softmax dimension(1) ins(%x : tensor<4x64xbf16>) outs(%e : tensor<4x64xbf16>) -> tensor<4x64xbf16>
  %c = tensor.empty() : tensor<16x16xf32>
  %m = accel.matmul ins(%a, %b : tensor<16x16xf16>, tensor<16x16xf16>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y, %m : tensor<4x64xbf16>, tensor<16x16xf32>
}
