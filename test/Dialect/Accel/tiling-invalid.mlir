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
  // expected-error @+1 {{cannot tile query heads: with grouped-query attention the head tile must be static and divide, or be a multiple of, the group size Hq / Hkv}}
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
