// RUN: accel-opt %s -split-input-file --accel-decompose-attention | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-decompose-attention=fuse-epilogues=false | FileCheck %s --check-prefix=OFF

#id4 = affine_map<(b, h, q, d) -> (b, h, q, d)>
#col = affine_map<(b, h, q, d) -> (d)>

// The elementwise generic after the attention (a residual, a bias along
// Dv, a cast to bf16) is applied to each output tile as it is written: the
// loops write the generic's bf16 output, each tile reading its [64, 32]
// slice of the residual and the bias; the generic is gone.
// CHECK-LABEL: func @residual_bias_cast
// CHECK-SAME: (%{{.+}}: tensor<1x2x128x32xf32>, %{{.+}}: tensor<1x2x128x32xf32>, %{{.+}}: tensor<1x2x128x32xf32>, %[[RES:.+]]: tensor<1x2x128x32xf32>, %[[BIAS:.+]]: tensor<32xf32>)
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<1x2x128x32xbf16>
// CHECK: scf.forall (%[[B:.+]], %[[H:.+]]) in (1, 2) shared_outs(%{{.+}} = %[[OUT]]) -> (tensor<1x2x128x32xbf16>)
// CHECK: scf.for %[[Q0:[^ ]+]] =
// CHECK: %[[R:.+]] = tensor.extract_slice %[[RES]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, 64, 32] [1, 1, 1, 1] : tensor<1x2x128x32xf32> to tensor<64x32xf32>
// CHECK: %[[BI:.+]] = tensor.extract_slice %[[BIAS]][0] [32] [1] : tensor<32xf32> to tensor<32xf32>
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}}, %[[R]], %[[BI]] : tensor<64x32xf32>, tensor<64xf32>, tensor<64x32xf32>, tensor<32xf32>) outs(%{{.+}} : tensor<64x32xbf16>)
// CHECK: arith.divf
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK-NOT: linalg.generic {{.+}} ins(%{{.+}} : tensor<1x2x128x32xf32>
// CHECK: return
// OFF-LABEL: func @residual_bias_cast
// OFF: scf.forall {{.+}} -> (tensor<1x2x128x32xf32>)
// OFF: linalg.generic {{.+}} outs(%{{.+}} : tensor<1x2x128x32xbf16>)
func.func @residual_bias_cast(%q: tensor<1x2x128x32xf32>, %k: tensor<1x2x128x32xf32>, %v: tensor<1x2x128x32xf32>, %res: tensor<1x2x128x32xf32>, %bias: tensor<32xf32>) -> tensor<1x2x128x32xbf16> {
  %o = tensor.empty() : tensor<1x2x128x32xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>) outs(%o : tensor<1x2x128x32xf32>) -> tensor<1x2x128x32xf32>
  %e = tensor.empty() : tensor<1x2x128x32xbf16>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #col, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %res, %bias : tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>, tensor<32xf32>) outs(%e : tensor<1x2x128x32xbf16>) {
  ^bb0(%x: f32, %r0: f32, %b0: f32, %y: bf16):
    %s = arith.addf %x, %r0 : f32
    %t = arith.addf %s, %b0 : f32
    %c = arith.truncf %t : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<1x2x128x32xbf16>
  return %r : tensor<1x2x128x32xbf16>
}

// -----

#id4 = affine_map<(b, h, q, d) -> (b, h, q, d)>
#swap = affine_map<(b, h, q, d) -> (b, q, h, d)>

// Not fused: a consumer whose output is not indexed by the identity (a
// head transpose), and an attention whose result has two users.
// CHECK-LABEL: func @transposed
// CHECK: scf.forall {{.+}} -> (tensor<1x2x64x32xf32>)
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<1x64x2x32xf32>)
// CHECK-LABEL: func @two_users
// CHECK: %[[A:.+]] = scf.forall {{.+}} -> (tensor<1x2x64x32xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[A]] : tensor<1x2x64x32xf32>) outs(%{{.+}} : tensor<1x2x64x32xf32>)
func.func @transposed(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>) -> tensor<1x64x2x32xf32> {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  %e = tensor.empty() : tensor<1x64x2x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #swap], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x2x64x32xf32>) outs(%e : tensor<1x64x2x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<1x64x2x32xf32>
  return %r : tensor<1x64x2x32xf32>
}

func.func @two_users(%q: tensor<1x2x64x32xf32>, %k: tensor<1x2x64x32xf32>, %v: tensor<1x2x64x32xf32>) -> (tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %a = accel.attention ins(%q, %k, %v : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  %e = tensor.empty() : tensor<1x2x64x32xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<1x2x64x32xf32>) outs(%e : tensor<1x2x64x32xf32>) {
  ^bb0(%x: f32, %y: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  } -> tensor<1x2x64x32xf32>
  return %a, %r : tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>
}
