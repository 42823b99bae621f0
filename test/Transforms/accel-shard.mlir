// accel-shard: upstream propagation and partitioning over accel's sharding
// interface models, and what each process holds recorded on the function.
// RUN: accel-opt %s -split-input-file --accel-shard | FileCheck %s

// Megatron's MLP: W1 column-parallel, W2 row-parallel. The hidden
// activation stays split, the second matmul leaves partial sums and one
// all-reduce makes the replicated result.
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:.*]]: tensor<8x16xf32>, %[[W1:.*]]: tensor<16x16xf32>, %[[W2:.*]]: tensor<16x16xf32>
// CHECK-SAME: accel.arg_split_axes = {{\[\[\], \[array<i64>, array<i64: 0>\], \[array<i64: 0>\]\]}}
// CHECK-SAME: accel.grid = array<i64: 2>
// CHECK-SAME: accel.result_split_axes = {{\[\[\]\]}}
// CHECK: %[[H:.*]] = accel.matmul ins(%[[X]], %[[W1]] : tensor<8x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[Y:.*]] = accel.matmul ins(%[[H]], %[[W2]] : tensor<8x16xf32>, tensor<16x16xf32>)
// CHECK: %[[R:.*]] = shard.all_reduce %[[Y]] on @grid grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// CHECK: return %[[R]]
func.func @mlp(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %w1s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<16x32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  %h = accel.matmul ins(%x, %w1a : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %w2s = shard.sharding @grid split_axes = [[0], []] : !shard.sharding
  %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<32x16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %y = accel.matmul ins(%h, %w2a : tensor<8x32xf32>, tensor<32x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<8x16xf32>
  return %ya : tensor<8x16xf32>
}

// -----

// An accumulating row-parallel matmul (transposed B): each process
// multiplies its K slice into a fresh tile; C is added once, after the sum.
shard.grid @grid(shape = 4)
// CHECK-LABEL: func.func @acc(
// CHECK-SAME: %[[A:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<24x16xf32>, %[[C:.*]]: tensor<8x24xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x24xf32>
// CHECK: %[[P:.*]] = accel.matmul transpose_b ins(%[[A]], %[[B]] : {{.*}}) outs(%[[E]] : tensor<8x24xf32>)
// CHECK: %[[S:.*]] = shard.all_reduce %[[P]] on @grid grid_axes = [0]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[S]], %[[C]] : {{.*}}) outs(%[[C]] : tensor<8x24xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]]
func.func @acc(%a: tensor<8x64xf32>, %b: tensor<24x64xf32>, %c: tensor<8x24xf32>) -> tensor<8x24xf32> {
  %as = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %aa = shard.shard %a to %as annotate_for_users : tensor<8x64xf32>
  %y = accel.matmul transpose_b accumulate ins(%aa, %b : tensor<8x64xf32>, tensor<24x64xf32>) outs(%c : tensor<8x24xf32>) -> tensor<8x24xf32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<8x24xf32>
  return %ya : tensor<8x24xf32>
}

// -----

// Batched matmul split over the batch: no communication.
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @batched(
// CHECK-SAME: tensor<2x8x16xbf16>, %{{.*}}: tensor<2x16x8xbf16>
// CHECK-SAME: accel.result_split_axes = {{\[\[array<i64: 0>\]\]}}
// CHECK: accel.matmul ins({{.*}} : tensor<2x8x16xbf16>, tensor<2x16x8xbf16>) outs({{.*}} : tensor<2x8x8xf32>)
// CHECK-NOT: shard.all_reduce
func.func @batched(%a: tensor<4x8x16xbf16>, %b: tensor<4x16x8xbf16>) -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %aa = shard.shard %a to %s annotate_for_users : tensor<4x8x16xbf16>
  %e = tensor.empty() : tensor<4x8x8xf32>
  %y = accel.matmul ins(%aa, %b : tensor<4x8x16xbf16>, tensor<4x16x8xbf16>) outs(%e : tensor<4x8x8xf32>) -> tensor<4x8x8xf32>
  return %y : tensor<4x8x8xf32>
}

// -----

// Head-parallel GQA attention: 8 query heads and 2 KV heads over 2
// processes give each 4 query heads and their 1 KV head (groups whole).
shard.grid @grid(shape = 2)
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME: tensor<2x4x64x32xf16>, %{{.*}}: tensor<2x1x64x32xf16>, %{{.*}}: tensor<2x1x64x32xf16>, %{{.*}}: tensor<2xi32>
// CHECK: accel.attention causal ins({{.*}} : tensor<2x4x64x32xf16>, tensor<2x1x64x32xf16>, tensor<2x1x64x32xf16>) kv_lengths({{.*}} : tensor<2xi32>) outs({{.*}} : tensor<2x4x64x32xf32>)
// CHECK-NOT: shard.all_reduce
// CHECK: return
func.func @gqa(%q: tensor<2x8x64x32xf16>, %k: tensor<2x2x64x32xf16>, %v: tensor<2x2x64x32xf16>, %len: tensor<2xi32>) -> tensor<2x8x64x32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<2x8x64x32xf16>
  %e = tensor.empty() : tensor<2x8x64x32xf32>
  %o = accel.attention causal ins(%qa, %k, %v : tensor<2x8x64x32xf16>, tensor<2x2x64x32xf16>, tensor<2x2x64x32xf16>) kv_lengths(%len : tensor<2xi32>) outs(%e : tensor<2x8x64x32xf32>) -> tensor<2x8x64x32xf32>
  return %o : tensor<2x8x64x32xf32>
}

// -----

// Batch-parallel MQA attention with a broadcast mask on a 2-D grid: the
// single K/V head and the mask's unit dimensions stay whole (replicated);
// the lengths follow the batch.
shard.grid @grid(shape = 2x2)
// CHECK-LABEL: func.func @mqa(
// CHECK-SAME: tensor<2x2x16x8xf32>, %{{.*}}: tensor<2x1x24x8xf32>, %{{.*}}: tensor<2x1x24x8xf32>, %{{.*}}: tensor<1x1x16x24xi1>, %{{.*}}: tensor<2xi64>
// CHECK-SAME: accel.arg_split_axes = {{\[\[array<i64: 0>, array<i64: 1>\], \[array<i64: 0>\], \[array<i64: 0>\], \[\], \[array<i64: 0>\]\]}}
// CHECK: accel.attention ins({{.*}} : tensor<2x2x16x8xf32>, tensor<2x1x24x8xf32>, tensor<2x1x24x8xf32>) mask({{.*}} : tensor<1x1x16x24xi1>) kv_lengths({{.*}} : tensor<2xi64>)
func.func @mqa(%q: tensor<4x4x16x8xf32>, %k: tensor<4x1x24x8xf32>, %v: tensor<4x1x24x8xf32>, %m: tensor<1x1x16x24xi1>, %len: tensor<4xi64>) -> tensor<4x4x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<4x4x16x8xf32>
  %e = tensor.empty() : tensor<4x4x16x8xf32>
  %o = accel.attention ins(%qa, %k, %v : tensor<4x4x16x8xf32>, tensor<4x1x24x8xf32>, tensor<4x1x24x8xf32>) mask(%m : tensor<1x1x16x24xi1>) kv_lengths(%len : tensor<4xi64>) outs(%e : tensor<4x4x16x8xf32>) -> tensor<4x4x16x8xf32>
  return %o : tensor<4x4x16x8xf32>
}

// -----

// Sequence-parallel attention without a band, and softmax over rows split
// along the other dimension.
shard.grid @grid(shape = 4)
// CHECK-LABEL: func.func @seq(
// CHECK: accel.attention ins({{.*}} : tensor<1x2x8x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>)
// CHECK: accel.softmax dimension(1) ins({{.*}} : tensor<8x40xf32>)
func.func @seq(%q: tensor<1x2x32x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %x: tensor<32x40xf32>) -> (tensor<1x2x32x16xf32>, tensor<32x40xf32>) {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x2x32x16xf32>
  %e = tensor.empty() : tensor<1x2x32x16xf32>
  %o = accel.attention ins(%qa, %k, %v : tensor<1x2x32x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) outs(%e : tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  %xs = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %xs annotate_for_users : tensor<32x40xf32>
  %e2 = tensor.empty() : tensor<32x40xf32>
  %p = accel.softmax dimension(1) ins(%xa : tensor<32x40xf32>) outs(%e2 : tensor<32x40xf32>) -> tensor<32x40xf32>
  return %o, %p : tensor<1x2x32x16xf32>, tensor<32x40xf32>
}

// -----

// A module without a grid, and a function without annotations, are left
// as they are.
// No attributes on the function (the line ends at its body's brace):
// CHECK-LABEL: func.func @plain(%{{[^:]*}}: tensor<8x16xf32>, %{{[^:]*}}: tensor<16x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: accel.matmul ins({{.*}} : tensor<8x16xf32>, tensor<16x32xf32>)
func.func @plain(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x32xf32>
  %h = accel.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %h : tensor<8x32xf32>
}
