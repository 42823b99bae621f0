// Sliding window and variable sequence lengths (accel.attention op
// semantics), against the fp64 oracle: windows narrower and wider than a key
// tile and W = 1, decode (Sq < Skv) and Sq > Skv, GQA, random per-batch
// lengths (accel-run draws them from [0, S]) and fixed edge lengths (0,
// above the padded size, negative), non-multiple sizes so the last tiles are
// partial; through FlashAttention-2 (default 128 x 128 tiles and small
// 16 x 8 tiles, where whole key tiles outside the window or past the length
// are skipped), the reference lowering, two threads, and tiled along the
// queries and batches through TilingInterface (the band and the query
// lengths follow the tile).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=7 --cpu-pipeline-options='attention-tile-q=16 attention-tile-kv=8' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=3 --cpu-pipeline-options='attention-tile-q=32 attention-tile-kv=16' --num-threads=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=4 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=5 --pre-passes=transform-interpreter,canonicalize --cpu-pipeline-options='attention-tile-q=8 attention-tile-kv=8' | FileCheck %s

// CHECK-LABEL: @window_narrow
// CHECK: PASS
// CHECK-LABEL: @window_wide_decode
// CHECK: PASS
// CHECK-LABEL: @window_1
// CHECK: PASS
// CHECK-LABEL: @window_sq_gt_skv
// CHECK: PASS
// CHECK-LABEL: @kv_lengths
// CHECK: PASS
// CHECK-LABEL: @varlen_causal_gqa
// CHECK: PASS
// CHECK-LABEL: @varlen_window
// CHECK: PASS
// CHECK-LABEL: @edge_lengths
// CHECK: PASS
// CHECK-LABEL: @varlen_decode_f16
// CHECK: PASS
// CHECK-LABEL: @extreme_lengths
// CHECK: PASS
// CHECK-LABEL: @extreme_lengths_noncausal
// CHECK: PASS
// CHECK-LABEL: @very_negative_i32_q_lengths
// CHECK: PASS
// CHECK: accel-run: 12 of 12 functions passed

func.func @window_narrow(%q: tensor<1x2x100x32xf32>, %k: tensor<1x2x100x32xf32>, %v: tensor<1x2x100x32xf32>) -> tensor<1x2x100x32xf32> {
  %o = tensor.empty() : tensor<1x2x100x32xf32>
  %r = accel.attention causal window(5) ins(%q, %k, %v : tensor<1x2x100x32xf32>, tensor<1x2x100x32xf32>, tensor<1x2x100x32xf32>) outs(%o : tensor<1x2x100x32xf32>) -> tensor<1x2x100x32xf32>
  return %r : tensor<1x2x100x32xf32>
}

func.func @window_wide_decode(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x301x16xf32>, %v: tensor<2x2x301x16xf32>) -> tensor<2x2x3x16xf32> {
  %o = tensor.empty() : tensor<2x2x3x16xf32>
  %r = accel.attention causal window(150) ins(%q, %k, %v : tensor<2x2x3x16xf32>, tensor<2x2x301x16xf32>, tensor<2x2x301x16xf32>) outs(%o : tensor<2x2x3x16xf32>) -> tensor<2x2x3x16xf32>
  return %r : tensor<2x2x3x16xf32>
}

func.func @window_1(%q: tensor<1x1x40x8xf32>, %k: tensor<1x1x40x8xf32>, %v: tensor<1x1x40x8xf32>) -> tensor<1x1x40x8xf32> {
  %o = tensor.empty() : tensor<1x1x40x8xf32>
  %r = accel.attention causal window(1) ins(%q, %k, %v : tensor<1x1x40x8xf32>, tensor<1x1x40x8xf32>, tensor<1x1x40x8xf32>) outs(%o : tensor<1x1x40x8xf32>) -> tensor<1x1x40x8xf32>
  return %r : tensor<1x1x40x8xf32>
}

// Sq > Skv: the first rows see no key at all (exact zeros).
func.func @window_sq_gt_skv(%q: tensor<1x2x70x16xf32>, %k: tensor<1x2x50x16xf32>, %v: tensor<1x2x50x16xf32>) -> tensor<1x2x70x16xf32> {
  %o = tensor.empty() : tensor<1x2x70x16xf32>
  %r = accel.attention causal window(12) ins(%q, %k, %v : tensor<1x2x70x16xf32>, tensor<1x2x50x16xf32>, tensor<1x2x50x16xf32>) outs(%o : tensor<1x2x70x16xf32>) -> tensor<1x2x70x16xf32>
  return %r : tensor<1x2x70x16xf32>
}

func.func @kv_lengths(%q: tensor<3x2x20x16xf32>, %k: tensor<3x2x90x16xf32>, %v: tensor<3x2x90x16xf32>, %kvl: tensor<3xi32>) -> tensor<3x2x20x16xf32> {
  %o = tensor.empty() : tensor<3x2x20x16xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<3x2x20x16xf32>, tensor<3x2x90x16xf32>, tensor<3x2x90x16xf32>) kv_lengths(%kvl : tensor<3xi32>) outs(%o : tensor<3x2x20x16xf32>) -> tensor<3x2x20x16xf32>
  return %r : tensor<3x2x20x16xf32>
}

func.func @varlen_causal_gqa(%q: tensor<3x4x67x32xf32>, %k: tensor<3x2x67x32xf32>, %v: tensor<3x2x67x32xf32>, %kvl: tensor<3xi64>, %ql: tensor<3xi64>) -> tensor<3x4x67x32xf32> {
  %o = tensor.empty() : tensor<3x4x67x32xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<3x4x67x32xf32>, tensor<3x2x67x32xf32>, tensor<3x2x67x32xf32>) kv_lengths(%kvl : tensor<3xi64>) q_lengths(%ql : tensor<3xi64>) outs(%o : tensor<3x4x67x32xf32>) -> tensor<3x4x67x32xf32>
  return %r : tensor<3x4x67x32xf32>
}

func.func @varlen_window(%q: tensor<2x2x45x16xf32>, %k: tensor<2x2x77x16xf32>, %v: tensor<2x2x77x16xf32>, %kvl: tensor<2xi32>, %ql: tensor<2xi32>) -> tensor<2x2x45x16xf32> {
  %o = tensor.empty() : tensor<2x2x45x16xf32>
  %r = accel.attention causal window(9) ins(%q, %k, %v : tensor<2x2x45x16xf32>, tensor<2x2x77x16xf32>, tensor<2x2x77x16xf32>) kv_lengths(%kvl : tensor<2xi32>) q_lengths(%ql : tensor<2xi32>) outs(%o : tensor<2x2x45x16xf32>) -> tensor<2x2x45x16xf32>
  return %r : tensor<2x2x45x16xf32>
}

// Lengths 0 (nothing kept: zeros), above the padded size (everything),
// negative (nothing) and exactly the size.
func.func @edge_lengths(%q: tensor<4x1x33x16xf32>, %k: tensor<4x1x41x16xf32>, %v: tensor<4x1x41x16xf32>) -> tensor<4x1x33x16xf32> {
  %kvl = arith.constant dense<[0, 1000, -3, 41]> : tensor<4xi32>
  %ql = arith.constant dense<[33, 50, 7, -1]> : tensor<4xi32>
  %o = tensor.empty() : tensor<4x1x33x16xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<4x1x33x16xf32>, tensor<4x1x41x16xf32>, tensor<4x1x41x16xf32>) kv_lengths(%kvl : tensor<4xi32>) q_lengths(%ql : tensor<4xi32>) outs(%o : tensor<4x1x33x16xf32>) -> tensor<4x1x33x16xf32>
  return %r : tensor<4x1x33x16xf32>
}

// A decode step over a padded KV cache: one query per sequence.
func.func @varlen_decode_f16(%q: tensor<4x8x1x64xf16>, %k: tensor<4x2x200x64xf16>, %v: tensor<4x2x200x64xf16>, %kvl: tensor<4xi32>) -> tensor<4x8x1x64xf32> {
  %o = tensor.empty() : tensor<4x8x1x64xf32>
  %r = accel.attention causal window(64) ins(%q, %k, %v : tensor<4x8x1x64xf16>, tensor<4x2x200x64xf16>, tensor<4x2x200x64xf16>) kv_lengths(%kvl : tensor<4xi32>) outs(%o : tensor<4x8x1x64xf32>) -> tensor<4x8x1x64xf32>
  return %r : tensor<4x8x1x64xf32>
}

// Lengths at the ends of i64 (clamped to [-2^31, 2^31] by definition, so
// off = kvlen - qlen cannot overflow): the first batch has off = 0 (the
// lower triangle, every row kept), the second keeps nothing; a window of
// 2^31 keeps the whole band.
func.func @extreme_lengths(%q: tensor<2x1x70x16xf32>, %k: tensor<2x1x90x16xf32>, %v: tensor<2x1x90x16xf32>) -> tensor<2x1x70x16xf32> {
  %kvl = arith.constant dense<[9223372036854775807, -9223372036854775808]> : tensor<2xi64>
  %ql = arith.constant dense<[9223372036854775807, 5]> : tensor<2xi64>
  %o = tensor.empty() : tensor<2x1x70x16xf32>
  %r = accel.attention causal window(2147483648) ins(%q, %k, %v : tensor<2x1x70x16xf32>, tensor<2x1x90x16xf32>, tensor<2x1x90x16xf32>) kv_lengths(%kvl : tensor<2xi64>) q_lengths(%ql : tensor<2xi64>) outs(%o : tensor<2x1x70x16xf32>) -> tensor<2x1x70x16xf32>
  return %r : tensor<2x1x70x16xf32>
}

func.func @extreme_lengths_noncausal(%q: tensor<2x1x70x16xf32>, %k: tensor<2x1x100x16xf32>, %v: tensor<2x1x100x16xf32>) -> tensor<2x1x70x16xf32> {
  %kvl = arith.constant dense<[9223372036854775807, 3]> : tensor<2xi64>
  %o = tensor.empty() : tensor<2x1x70x16xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<2x1x70x16xf32>, tensor<2x1x100x16xf32>, tensor<2x1x100x16xf32>) kv_lengths(%kvl : tensor<2xi64>) outs(%o : tensor<2x1x70x16xf32>) -> tensor<2x1x70x16xf32>
  return %r : tensor<2x1x70x16xf32>
}

// A query length near the bottom of i32: no row is kept (zeros), also in
// the query tiles of the TilingInterface run (their shifted length must not
// wrap).
func.func @very_negative_i32_q_lengths(%q: tensor<1x1x40x8xf32>, %k: tensor<1x1x40x8xf32>, %v: tensor<1x1x40x8xf32>) -> tensor<1x1x40x8xf32> {
  %ql = arith.constant dense<[-2147483600]> : tensor<1xi32>
  %o = tensor.empty() : tensor<1x1x40x8xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<1x1x40x8xf32>, tensor<1x1x40x8xf32>, tensor<1x1x40x8xf32>) q_lengths(%ql : tensor<1xi32>) outs(%o : tensor<1x1x40x8xf32>) -> tensor<1x1x40x8xf32>
  return %r : tensor<1x1x40x8xf32>
}

// Tiled through TilingInterface when --pre-passes runs the interpreter:
// batches by 1, query heads by 1, queries by 16 (the last tile partial).
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %ops = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l0, %l1, %l2 = transform.structured.tile_using_for %ops tile_sizes [1, 1, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
