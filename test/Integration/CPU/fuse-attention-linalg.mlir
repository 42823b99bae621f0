// Unfused attention chains written in linalg, as torch-mlir and IREE emit
// them, run through the CPU pipeline, which fuses them (accel-raise, then
// accel-fuse-attention), while the fp64 oracle evaluates the chain as
// written (transposes, elementwise generics, linalg.softmax, reshapes):
// fusing must not change what the chain computes.
// RUN: accel-run %s --repeat=0 --i1-zero-rows=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=5 | FileCheck %s
// The reference lowering instead of FlashAttention: its contractions read
// the chains' reshaped Q (a memref.expand_shape of the argument) directly.
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s
// Every chain fuses, from linalg alone and after accel-raise (the pipeline's
// order, where named matmuls are accel.matmul by then):
// RUN: accel-opt %s --accel-fuse-attention | FileCheck %s --check-prefix=CHECK-FUSED
// RUN: accel-opt %s --accel-raise --accel-fuse-attention | FileCheck %s --check-prefix=CHECK-FUSED
// CHECK-FUSED-COUNT-7: accel.attention
// CHECK-FUSED-NOT: linalg.softmax
// CHECK-FUSED-NOT: accel.softmax
// CHECK-LABEL: @bmm_transpose_k
// CHECK: PASS
// CHECK-LABEL: @bmm_transpose_b_div_mask
// CHECK: PASS
// CHECK-LABEL: @matmul_2d_select_scale_in_one_body
// CHECK: PASS
// CHECK-LABEL: @generic_4d_key_padding
// CHECK: PASS
// CHECK-LABEL: @bmm_bf16
// CHECK: PASS
// CHECK-LABEL: @torch_4d_collapsed
// CHECK: PASS
// CHECK-LABEL: @scores_transposed
// CHECK: PASS
// CHECK: accel-run: 7 of 7 functions passed

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// [B·H, S, D] through batch_matmul, K through linalg.transpose, the scale a
// splat operand of a generic.
func.func @bmm_transpose_k(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x8x24xf32>
  %kt = linalg.transpose ins(%k : tensor<4x24x8xf32>) outs(%et : tensor<4x8x24xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x16x8xf32>, tensor<4x8x24xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %c = arith.constant dense<0.35> : tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
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

// K transposed through batch_matmul's indexing maps; a division by a
// captured constant, then an additive [Sq, Skv] mask broadcast over B·H.
func.func @bmm_transpose_b_div_mask(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x24x8xf32>, %mask: tensor<16x24xf32>) -> tensor<4x16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %sqrtd = arith.constant 2.828427 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x8xf32>, tensor<4x24x8xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %ss = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) {
  ^bb0(%a: f32, %o: f32):
    %d = arith.divf %a, %sqrtd : f32
    linalg.yield %d : f32
  } -> tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %sm = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d1, d2)>, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
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

// One head, 2-D: linalg.matmul with B transposed through its maps, and one
// generic that scales (a constant defined in the body) and masks with a
// captured -inf.
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

// [B, H, S, D] with multiply-add generics (K transposed through the maps),
// a scalar scale operand, and a [B, Skv] key-padding mask (becomes
// [B, 1, 1, Skv]).
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
  %ss = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> ()>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %scale : tensor<2x3x16x24xf32>, f32) outs(%e2 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %x = arith.mulf %a, %c : f32
    linalg.yield %x : f32
  } -> tensor<2x3x16x24xf32>
  %e3 = tensor.empty() : tensor<2x3x16x24xf32>
  %sm = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> (d0, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
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

// Everything in bf16 (IREE's half-precision form): the fused op keeps the
// scores in f32, the chain rounds them to bf16.
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

// torch-mlir's 4-D matmul: K transposed in 4-D, batch dims collapsed for
// batch_matmul and expanded back; P collapsed again for P·V. Scale and an
// additive [B, 1, 1, Skv] mask (read at 0 along H and Sq) in one body.
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
  %ss = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
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

// The scores as the transpose of K·Qᵀ, scaled by arith on tensors.
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
