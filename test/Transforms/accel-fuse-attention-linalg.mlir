// RUN: accel-opt %s -split-input-file --accel-fuse-attention --canonicalize --cse | FileCheck %s

// accel-fuse-attention on chains written in linalg, as torch-mlir and IREE
// emit them. The positive cases are also run numerically against the fp64
// oracle (test/Integration/CPU/fuse-attention-linalg.mlir).

// -----

// [B·H, S, D] through batch_matmul, K through linalg.transpose, the scale a
// splat operand of a generic.
// CHECK-LABEL: func @bmm_transpose_k
// CHECK-SAME: (%[[Q:.+]]: tensor<4x16x8xf32>, %[[K:.+]]: tensor<4x24x8xf32>, %[[V:.+]]: tensor<4x24x8xf32>)
// CHECK-DAG: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, 16, 8]
// CHECK-DAG: %[[K4:.+]] = tensor.expand_shape %[[K]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, 24, 8]
// CHECK-DAG: %[[V4:.+]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1], [2], [3]] output_shape [1, 4, 24, 8]
// CHECK: %[[O:.+]] = accel.attention scale(3.500000e-01) ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x4x16x8xf32>, tensor<1x4x24x8xf32>, tensor<1x4x24x8xf32>) outs(%{{.+}} : tensor<1x4x16x8xf32>)
// CHECK: %[[R:.+]] = tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2], [3]] : tensor<1x4x16x8xf32> into tensor<4x16x8xf32>
// CHECK-NOT: linalg.
// CHECK: return %[[R]]
func.func @bmm_transpose_k(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x8x24xf32>
  %kt = linalg.transpose ins(%k : tensor<4x24x8xf32>) outs(%et : tensor<4x8x24xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x16x8xf32>, tensor<4x8x24xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %c : tensor<4x16x24xf32>, tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// K transposed through batch_matmul's indexing maps; a division by a
// captured constant, then an additive [Sq, Skv] mask broadcast over B·H.
// CHECK-LABEL: func @bmm_transpose_b_div_mask
// CHECK-SAME: %[[M:[^:]+]]: tensor<16x24xf32>)
// CHECK: %[[M4:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 16, 24]
// CHECK: accel.attention scale(0.353553385) ins({{.+}}) mask(%[[M4]] : tensor<1x1x16x24xf32>)
// CHECK-NOT: linalg.
func.func @bmm_transpose_b_div_mask(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>, %mask: tensor<16x24xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %sqrtd = arith.constant 2.828427 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %sqrtd : f32
    linalg.yield %d : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ss, %mask : tensor<4x16x24xf32>, tensor<16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.addf %m, %a : f32
    linalg.yield %r : f32
  } -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<4x16x24xf32>) outs(%e4 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e5 = tensor.empty() : tensor<4x16x8xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f5 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// One head, 2-D: linalg.matmul with B transposed through its maps, and one
// generic that scales (a constant defined in the body) and masks with a
// captured -inf.
// CHECK-LABEL: func @matmul_2d_select_scale_in_one_body
// CHECK-SAME: %[[M:[^:]+]]: tensor<16x24xi1>)
// CHECK: %[[M4:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 16, 24]
// CHECK: %[[O:.+]] = accel.attention scale(2.500000e-01) ins({{.+}} : tensor<1x1x16x8xf32>, tensor<1x1x24x8xf32>, tensor<1x1x24x8xf32>) mask(%[[M4]] : tensor<1x1x16x24xi1>)
// CHECK: tensor.collapse_shape %[[O]] {{\[\[}}0, 1, 2], [3]] : tensor<1x1x16x8xf32> into tensor<16x8xf32>
// CHECK-NOT: linalg.
func.func @matmul_2d_select_scale_in_one_body(%q: tensor<16x8xf32>, %k: tensor<24x8xf32>, %v: tensor<24x8xf32>, %mask: tensor<16x24xi1>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e1 = tensor.empty() : tensor<16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%q, %k : tensor<16x8xf32>, tensor<24x8xf32>) outs(%f1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e2 = tensor.empty() : tensor<16x24xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%s, %mask : tensor<16x24xf32>, tensor<16x24xi1>) outs(%e2 : tensor<16x24xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %c = arith.constant 0.25 : f32
    %x = arith.mulf %c, %a : f32
    %r = arith.select %m, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<16x24xf32>
  %e3 = tensor.empty() : tensor<16x24xf32>
  %p = linalg.softmax dimension(1) ins(%sm : tensor<16x24xf32>) outs(%e3 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e4 = tensor.empty() : tensor<16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<16x24xf32>, tensor<24x8xf32>) outs(%f4 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

// [B, H, S, D] with multiply-add generics (K transposed through the maps),
// a scalar scale operand, and a [B, Skv] key-padding mask (becomes
// [B, 1, 1, Skv]).
// CHECK-LABEL: func @generic_4d_key_padding
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<2x3x16x8xf32>, %[[K:[^:]+]]: tensor<2x3x24x8xf32>, %[[V:[^:]+]]: tensor<2x3x24x8xf32>, %[[M:[^:]+]]: tensor<2x24xi1>)
// CHECK: %[[M4:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0], [1, 2, 3]] output_shape [2, 1, 1, 24]
// CHECK: accel.attention scale(3.500000e-01) ins(%[[Q]], %[[K]], %[[V]] : {{.+}}) mask(%[[M4]] : tensor<2x1x1x24xi1>)
// CHECK-NOT: linalg.
func.func @generic_4d_key_padding(%q: tensor<2x3x16x8xf32>, %k: tensor<2x3x24x8xf32>, %v: tensor<2x3x24x8xf32>, %mask: tensor<2x24xi1>) -> tensor<2x3x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %ninf = arith.constant dense<0xFF800000> : tensor<f32>
  %e1 = tensor.empty() : tensor<2x3x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, n, k)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x16x8xf32>, tensor<2x3x24x8xf32>) outs(%f1 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x24xf32>
  %e2 = tensor.empty() : tensor<2x3x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %scale : tensor<2x3x16x24xf32>, f32) outs(%e2 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %x = arith.mulf %a, %c : f32
    linalg.yield %x : f32
  } -> tensor<2x3x16x24xf32>
  %e3 = tensor.empty() : tensor<2x3x16x24xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%ss, %mask, %ninf : tensor<2x3x16x24xf32>, tensor<2x24xi1>, tensor<f32>) outs(%e3 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %m: i1, %n: f32, %o: f32):
    %r = arith.select %m, %a, %n : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x24xf32>
  %e4 = tensor.empty() : tensor<2x3x16x24xf32>
  %p = linalg.softmax dimension(3) ins(%sm : tensor<2x3x16x24xf32>) outs(%e4 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %e5 = tensor.empty() : tensor<2x3x16x8xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<2x3x16x8xf32>) -> tensor<2x3x16x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x16x24xf32>, tensor<2x3x24x8xf32>) outs(%f5 : tensor<2x3x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %b, %a : f32
    %r = arith.addf %m, %c : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x8xf32>
  return %o : tensor<2x3x16x8xf32>
}

// -----

// Everything in bf16 (IREE's half-precision form): the fused op keeps the
// scores in f32, the chain rounds them to bf16.
// CHECK-LABEL: func @bmm_bf16
// CHECK: accel.attention scale(5.000000e-01) ins({{.+}} : tensor<1x4x16x8xbf16>, tensor<1x4x24x8xbf16>, tensor<1x4x24x8xbf16>) outs(%{{.+}} : tensor<1x4x16x8xbf16>)
// CHECK-NOT: linalg.
func.func @bmm_bf16(%q: tensor<4x16x8xbf16>, %k: tensor<4x24x8xbf16>, %v: tensor<4x24x8xbf16>) -> tensor<4x16x8xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e1 = tensor.empty() : tensor<4x16x24xbf16>
  %f1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xbf16>, tensor<4x24x8xbf16>) outs(%f1 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %c = arith.constant dense<0.5> : tensor<4x16x24xbf16>
  %ss = arith.mulf %s, %c : tensor<4x16x24xbf16>
  %e3 = tensor.empty() : tensor<4x16x24xbf16>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xbf16>) outs(%e3 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %e4 = tensor.empty() : tensor<4x16x8xbf16>
  %f4 = linalg.fill ins(%zero : bf16) outs(%e4 : tensor<4x16x8xbf16>) -> tensor<4x16x8xbf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xbf16>, tensor<4x24x8xbf16>) outs(%f4 : tensor<4x16x8xbf16>) -> tensor<4x16x8xbf16>
  return %o : tensor<4x16x8xbf16>
}

// -----

// torch-mlir's 4-D matmul: K transposed in 4-D, batch dims collapsed for
// batch_matmul and expanded back; P collapsed again for P·V. Scale and an
// additive [B, 1, 1, Skv] mask (read at 0 along H and Sq) in one body.
// CHECK-LABEL: func @torch_4d_collapsed
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<2x3x16x8xf32>, %[[K:[^:]+]]: tensor<2x3x24x8xf32>, %[[V:[^:]+]]: tensor<2x3x24x8xf32>, %[[M:[^:]+]]: tensor<2x1x1x24xf32>)
// CHECK: %[[O:.+]] = accel.attention scale(1.250000e-01) ins(%[[Q]], %[[K]], %[[V]] : tensor<2x3x16x8xf32>, tensor<2x3x24x8xf32>, tensor<2x3x24x8xf32>) mask(%[[M]] : tensor<2x1x1x24xf32>)
// CHECK-NOT: linalg.
// CHECK: return %[[O]]
func.func @torch_4d_collapsed(%q: tensor<2x3x16x8xf32>, %k: tensor<2x3x24x8xf32>, %v: tensor<2x3x24x8xf32>, %mask: tensor<2x1x1x24xf32>) -> tensor<2x3x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x3x8x24xf32>
  %kt = linalg.transpose ins(%k : tensor<2x3x24x8xf32>) outs(%et : tensor<2x3x8x24xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x16x8xf32> into tensor<6x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x8x24xf32> into tensor<6x8x24xf32>
  %e1 = tensor.empty() : tensor<6x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<6x16x8xf32>, tensor<6x8x24xf32>) outs(%f1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 24] : tensor<6x16x24xf32> into tensor<2x3x16x24xf32>
  %c = arith.constant dense<0.125> : tensor<f32>
  %e2 = tensor.empty() : tensor<2x3x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %c, %mask : tensor<2x3x16x24xf32>, tensor<f32>, tensor<2x1x1x24xf32>) outs(%e2 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %m: f32, %o: f32):
    %x = arith.mulf %a, %b : f32
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x3x16x24xf32>
  %e3 = tensor.empty() : tensor<2x3x16x24xf32>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<2x3x16x24xf32>) outs(%e3 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x3x16x24xf32> into tensor<6x16x24xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x3x24x8xf32> into tensor<6x24x8xf32>
  %e4 = tensor.empty() : tensor<6x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<6x16x24xf32>, tensor<6x24x8xf32>) outs(%f4 : tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 8] : tensor<6x16x8xf32> into tensor<2x3x16x8xf32>
  return %o : tensor<2x3x16x8xf32>
}

// -----

// The scores as the transpose of K·Qᵀ, scaled by arith on tensors.
// CHECK-LABEL: func @scores_transposed
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<16x8xf32>, %[[K:[^:]+]]: tensor<24x8xf32>
// CHECK-DAG: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{.+}} into tensor<1x1x16x8xf32>
// CHECK-DAG: %[[K4:.+]] = tensor.expand_shape %[[K]] {{.+}} into tensor<1x1x24x8xf32>
// CHECK: accel.attention scale(3.500000e-01) ins(%[[Q4]], %[[K4]], %{{.+}} :
// CHECK-NOT: linalg.
func.func @scores_transposed(%q: tensor<16x8xf32>, %k: tensor<24x8xf32>, %v: tensor<24x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<24x16xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<24x16xf32>) -> tensor<24x16xf32>
  %st = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%k, %q : tensor<24x8xf32>, tensor<16x8xf32>) outs(%f1 : tensor<24x16xf32>) -> tensor<24x16xf32>
  %et = tensor.empty() : tensor<16x24xf32>
  %s = linalg.transpose ins(%st : tensor<24x16xf32>) outs(%et : tensor<16x24xf32>) permutation = [1, 0]
  %c = arith.constant dense<0.35> : tensor<16x24xf32>
  %ss = arith.mulf %c, %s : tensor<16x24xf32>
  %e3 = tensor.empty() : tensor<16x24xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<16x24xf32>) outs(%e3 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e4 = tensor.empty() : tensor<16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %o = linalg.matmul ins(%p, %v : tensor<16x24xf32>, tensor<24x8xf32>) outs(%f4 : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %o : tensor<16x8xf32>
}

// -----

// Dynamic sizes: the expansions take them from the operands. (accel-run
// needs static shapes, so this one is checked here only.)
// CHECK-LABEL: func @dynamic_sizes
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<?x?x8xf32>, %[[K:[^:]+]]: tensor<?x?x8xf32>, %[[V:[^:]+]]: tensor<?x?x8xf32>, %[[M:[^:]+]]: tensor<?x?xi1>)
// CHECK-DAG: %[[B:.+]] = tensor.dim %[[Q]], %c0
// CHECK-DAG: %[[SQ:.+]] = tensor.dim %[[Q]], %c1
// CHECK-DAG: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] output_shape [1, %[[B]], %[[SQ]], 8] : tensor<?x?x8xf32> into tensor<1x?x?x8xf32>
// CHECK-DAG: %[[M4:.+]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, %{{.+}}, %{{.+}}] : tensor<?x?xi1> into tensor<1x1x?x?xi1>
// CHECK: %[[O:.+]] = accel.attention scale(3.500000e-01) ins(%[[Q4]], %{{.+}}, %{{.+}} : tensor<1x?x?x8xf32>, tensor<1x?x?x8xf32>, tensor<1x?x?x8xf32>) mask(%[[M4]] : tensor<1x1x?x?xi1>)
// CHECK: tensor.collapse_shape %[[O]] {{\[\[}}0, 1], [2], [3]] : tensor<1x?x?x8xf32> into tensor<?x?x8xf32>
func.func @dynamic_sizes(%q: tensor<?x?x8xf32>, %k: tensor<?x?x8xf32>, %v: tensor<?x?x8xf32>, %mask: tensor<?x?xi1>) -> tensor<?x?x8xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %q, %c0 : tensor<?x?x8xf32>
  %sq = tensor.dim %q, %c1 : tensor<?x?x8xf32>
  %skv = tensor.dim %k, %c1 : tensor<?x?x8xf32>
  %e1 = tensor.empty(%b, %sq, %skv) : tensor<?x?x?xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<?x?x8xf32>, tensor<?x?x8xf32>) outs(%f1 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %e2 = tensor.empty(%b, %sq, %skv) : tensor<?x?x?xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<?x?x?xf32>, tensor<?x?xi1>) outs(%e2 : tensor<?x?x?xf32>) {
  ^bb0(%a: f32, %m: i1, %o: f32):
    %c = arith.constant 0.35 : f32
    %x = arith.mulf %a, %c : f32
    %r = arith.select %m, %x, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<?x?x?xf32>
  %e3 = tensor.empty(%b, %sq, %skv) : tensor<?x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<?x?x?xf32>) outs(%e3 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %e4 = tensor.empty(%b, %sq) : tensor<?x?x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<?x?x?xf32>, tensor<?x?x8xf32>) outs(%f4 : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %o : tensor<?x?x8xf32>
}

// -----

// Negative: the scaled logits have another user (they are returned).
// CHECK-LABEL: func @scaled_logits_reused
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @scaled_logits_reused(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o, %ss : tensor<4x16x8xf32>, tensor<4x16x24xf32>
}

// -----

// Negative: linalg.softmax normalises over the queries, not the keys.
// CHECK-LABEL: func @softmax_over_queries
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax dimension(1)
func.func @softmax_over_queries(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x24x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(1) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x24x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x24x8xf32>) -> tensor<4x24x8xf32>
  %o = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%p, %v : tensor<4x16x24xf32>, tensor<4x16x8xf32>) outs(%f4 : tensor<4x24x8xf32>) -> tensor<4x24x8xf32>
  return %o : tensor<4x24x8xf32>
}

// -----

// Negative: softmax over the keys, but the last dimension of 3 is not the
// one linalg.softmax was given.
// CHECK-LABEL: func @softmax_wrong_dimension
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax dimension(0)
func.func @softmax_wrong_dimension(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(0) ins(%s : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: the scale is a block argument, not a constant.
// CHECK-LABEL: func @scale_not_constant
// CHECK-NOT: accel.attention
// CHECK: arith.mulf
func.func @scale_not_constant(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>, %scale: f32) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %scale : tensor<4x16x24xf32>, f32) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %x = arith.mulf %a, %c : f32
    linalg.yield %x : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: the shapes disagree. The logits' batch is dynamic, so the types
// check, but Q has 2 heads and V 3.
// CHECK-LABEL: func @shapes_disagree
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @shapes_disagree(%q: tensor<2x16x8xf32>, %k: tensor<2x24x8xf32>, %v: tensor<3x24x8xf32>, %n: index) -> tensor<3x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty(%n) : tensor<?x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x16x24xf32>) -> tensor<?x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<2x16x8xf32>, tensor<2x24x8xf32>) outs(%f1 : tensor<?x16x24xf32>) -> tensor<?x16x24xf32>
  %e2 = tensor.empty(%n) : tensor<?x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<?x16x24xf32>) outs(%e2 : tensor<?x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<?x16x24xf32>
  %e3 = tensor.empty(%n) : tensor<?x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<?x16x24xf32>) outs(%e3 : tensor<?x16x24xf32>) -> tensor<?x16x24xf32>
  %e4 = tensor.empty() : tensor<3x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<3x16x8xf32>) -> tensor<3x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<?x16x24xf32>, tensor<3x24x8xf32>) outs(%f4 : tensor<3x16x8xf32>) -> tensor<3x16x8xf32>
  return %o : tensor<3x16x8xf32>
}

// -----

// Negative: Q·Kᵀ accumulates into a non-zero init.
// CHECK-LABEL: func @qk_accumulates
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @qk_accumulates(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%one : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: P·V accumulates into an init that is not a fill (a generic
// multiply-add reads whatever %acc holds).
// CHECK-LABEL: func @pv_accumulates
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @pv_accumulates(%q: tensor<2x3x16x8xf32>, %k: tensor<2x3x24x8xf32>, %v: tensor<2x3x24x8xf32>, %acc: tensor<2x3x16x8xf32>) -> tensor<2x3x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<2x3x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, n, k)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<2x3x16x8xf32>, tensor<2x3x24x8xf32>) outs(%f1 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x24xf32>
  %cs = arith.constant dense<0.35> : tensor<2x3x16x24xf32>
  %ss = arith.mulf %s, %cs : tensor<2x3x16x24xf32>
  %e4 = tensor.empty() : tensor<2x3x16x24xf32>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<2x3x16x24xf32>) outs(%e4 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : tensor<2x3x16x24xf32>, tensor<2x3x24x8xf32>) outs(%acc : tensor<2x3x16x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %c, %m : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16x8xf32>
  return %o : tensor<2x3x16x8xf32>
}

// -----

// Negative: the generic body subtracts the constant instead of scaling.
// CHECK-LABEL: func @body_not_a_scale
// CHECK-NOT: accel.attention
// CHECK: arith.subf
func.func @body_not_a_scale(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.subf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: the mask is read transposed ([Skv, Sq] through (d2, d1)), a
// broadcast tensor.expand_shape cannot express.
// CHECK-LABEL: func @mask_transposed
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @mask_transposed(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>, %mask: tensor<24x16xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %sm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s, %mask : tensor<4x16x24xf32>, tensor<24x16xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    %r = arith.addf %x, %m : f32
    linalg.yield %r : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%sm : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: the mask is added before the scale, so the scale would scale
// the mask too.
// CHECK-LABEL: func @mask_before_scale
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @mask_before_scale(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>, %mask: tensor<4x16x24xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %sm = arith.addf %s, %mask : tensor<4x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<4x16x24xf32>
  %ss = arith.mulf %sm, %c : tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x8xf32>) outs(%f4 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %o : tensor<4x16x8xf32>
}

// -----

// Negative: the transpose that feeds the product swaps K's first two
// dimensions, not its last two: K is not [B·H, Skv, D] transposed (every
// size is 8, so the shapes alone would not tell).
// CHECK-LABEL: func @k_transpose_wrong_permutation
// CHECK-NOT: accel.attention
// CHECK: linalg.transpose
func.func @k_transpose_wrong_permutation(%q: tensor<8x16x8xf32>, %k: tensor<8x8x8xf32>, %v: tensor<8x8x8xf32>) -> tensor<8x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.35 : f32
  %et = tensor.empty() : tensor<8x8x8xf32>
  %kt = linalg.transpose ins(%k : tensor<8x8x8xf32>) outs(%et : tensor<8x8x8xf32>) permutation = [1, 0, 2]
  %e1 = tensor.empty() : tensor<8x16x8xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<8x16x8xf32>, tensor<8x8x8xf32>) outs(%f1 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e2 = tensor.empty() : tensor<8x16x8xf32>
  %ss = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<8x16x8xf32>) outs(%e2 : tensor<8x16x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %x = arith.mulf %a, %scale : f32
    linalg.yield %x : f32
  } -> tensor<8x16x8xf32>
  %e3 = tensor.empty() : tensor<8x16x8xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<8x16x8xf32>) outs(%e3 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %e4 = tensor.empty() : tensor<8x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<8x16x8xf32>, tensor<8x8x8xf32>) outs(%f4 : tensor<8x16x8xf32>) -> tensor<8x16x8xf32>
  return %o : tensor<8x16x8xf32>
}

// -----

// Negative: K [2, 3, ..] is transposed, then its batch collapsed to 6, but
// the logits are expanded back as [3, 2]: K's batch dims are not the scores'.
// CHECK-LABEL: func @k_collapse_not_the_logits
// CHECK-NOT: accel.attention
// CHECK: linalg.softmax
func.func @k_collapse_not_the_logits(%q: tensor<3x2x16x8xf32>, %k: tensor<2x3x24x8xf32>, %v: tensor<3x2x24x8xf32>) -> tensor<3x2x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x3x8x24xf32>
  %kt = linalg.transpose ins(%k : tensor<2x3x24x8xf32>) outs(%et : tensor<2x3x8x24xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<3x2x16x8xf32> into tensor<6x16x8xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x8x24xf32> into tensor<6x8x24xf32>
  %e1 = tensor.empty() : tensor<6x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<6x16x8xf32>, tensor<6x8x24xf32>) outs(%f1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [3, 2, 16, 24] : tensor<6x16x24xf32> into tensor<3x2x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<3x2x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<3x2x16x24xf32>
  %e3 = tensor.empty() : tensor<3x2x16x24xf32>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<3x2x16x24xf32>) outs(%e3 : tensor<3x2x16x24xf32>) -> tensor<3x2x16x24xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<3x2x16x24xf32> into tensor<6x16x24xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<3x2x24x8xf32> into tensor<6x24x8xf32>
  %e4 = tensor.empty() : tensor<6x16x8xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<6x16x24xf32>, tensor<6x24x8xf32>) outs(%f4 : tensor<6x16x8xf32>) -> tensor<6x16x8xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [3, 2, 16, 8] : tensor<6x16x8xf32> into tensor<3x2x16x8xf32>
  return %o : tensor<3x2x16x8xf32>
}
