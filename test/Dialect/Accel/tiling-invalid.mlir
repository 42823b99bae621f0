// RUN: accel-opt %s -split-input-file --transform-interpreter -verify-diagnostics

// Tiles that would change an op's meaning are refused with the reason.

// A softmax row cannot be split: each tile would normalise on its own.
func.func @softmax_split_row(%x: tensor<10x1000xf32>) -> tensor<10x1000xf32> {
  // The upstream driver adds its own (misspelled) note of the failure.
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-error @+1 {{cannot tile the softmax dimension 1: a tile must cover it whole (use tile size 0 for that loop)}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<10x1000xf32>)
                     outs(%x : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  return %0 : tensor<10x1000xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %op tile_sizes [4, 100] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Group size 4 (Hq = 8, Hkv = 2): a tile of 3 query heads would straddle two
// KV heads with no consistent mapping.
func.func @attention_gqa_straddle(%q: tensor<1x8x16x8xf32>, %k: tensor<1x2x16x8xf32>,
                                  %o: tensor<1x8x16x8xf32>) -> tensor<1x8x16x8xf32> {
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-error @+1 {{cannot tile query heads: with grouped-query attention the head tile must be static, divide or be a multiple of the group size Hq / Hkv, and start on a multiple of its size (head counts must be static and non-zero)}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x8x16x8xf32>, tensor<1x2x16x8xf32>,
                                         tensor<1x2x16x8xf32>)
                       outs(%o : tensor<1x8x16x8xf32>) -> tensor<1x8x16x8xf32>
  return %0 : tensor<1x8x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 3] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Without `accumulate` the first K tile writes C; with K = 0 there is no
// first tile and C would stay uninitialised, so K tiling needs a static K > 0.
func.func @matmul_k_zero(%a: tensor<8x0xf32>, %b: tensor<0x8xf32>) -> tensor<8x8xf32> {
  %c = tensor.empty() : tensor<8x8xf32>
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-error @+1 {{cannot tile K of a matmul without 'accumulate' unless K is static and positive (fill C and set 'accumulate' to tile a dynamic K)}}
  %0 = accel.matmul ins(%a, %b : tensor<8x0xf32>, tensor<0x8xf32>)
                    outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// No query heads: refused with a message, never a division by zero.
func.func @attention_no_query_heads(%q: tensor<1x0x16x8xf32>, %k: tensor<1x2x16x8xf32>,
                                    %o: tensor<1x0x16x8xf32>) -> tensor<1x0x16x8xf32> {
  // expected-error @+3 {{faild to tile operation}}
  // expected-error @+2 {{failed to generate tiling loops}}
  // expected-error @+1 {{cannot tile query heads}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x0x16x8xf32>, tensor<1x2x16x8xf32>,
                                         tensor<1x2x16x8xf32>)
                       outs(%o : tensor<1x0x16x8xf32>) -> tensor<1x0x16x8xf32>
  return %0 : tensor<1x0x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %op tile_sizes [0, 1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Fusing into a consumer that wants query heads [3, 5) of a group-4 GQA
// attention would need KV heads 0 and 1 in one tile: refused (the producer
// stays unfused), where it used to read KV head 0 for both.
func.func @attention_gqa_unaligned_fusion(%q: tensor<1x8x16x8xf32>, %k: tensor<1x2x16x8xf32>,
                                          %o: tensor<1x8x16x8xf32>) -> tensor<1x2x16x8xf32> {
  // expected-error @+1 {{cannot tile query heads}}
  %0 = accel.attention ins(%q, %k, %k : tensor<1x8x16x8xf32>, tensor<1x2x16x8xf32>,
                                         tensor<1x2x16x8xf32>)
                       outs(%o : tensor<1x8x16x8xf32>) -> tensor<1x8x16x8xf32>
  %e = tensor.empty() : tensor<1x2x16x8xf32>
  %r = scf.forall (%i) in (1) shared_outs(%out = %e) -> (tensor<1x2x16x8xf32>) {
    %s = tensor.extract_slice %0[0, 3, 0, 0] [1, 2, 16, 8] [1, 1, 1, 1]
         : tensor<1x8x16x8xf32> to tensor<1x2x16x8xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %out[0, 0, 0, 0] [1, 2, 16, 8] [1, 1, 1, 1]
        : tensor<1x2x16x8xf32> into tensor<1x2x16x8xf32>
    }
  }
  return %r : tensor<1x2x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %attn = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %loop = transform.structured.match ops{["scf.forall"]} in %root : (!transform.any_op) -> !transform.any_op
    %fused, %new = transform.structured.fuse_into_containing_op %attn into %loop : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
