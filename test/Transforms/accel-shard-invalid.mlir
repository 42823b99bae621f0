// One case per located error of accel-shard and of the accel ops' sharding
// models: splits the kernels cannot compute locally, or that the grid
// cannot make.
// RUN: accel-opt %s -split-input-file --accel-shard -verify-diagnostics
// The ops' own checks under upstream's passes alone (accel-shard checks the
// function's annotations before): accel-shard-partition-invalid.mlir.

shard.grid @grid(shape = 2)
func.func @k_split_bf16(%a: tensor<8x64xbf16>, %b: tensor<64x16xbf16>) -> tensor<8x16xbf16> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %aa = shard.shard %a to %s annotate_for_users : tensor<8x64xbf16>
  %e = tensor.empty() : tensor<8x16xbf16>
  // expected-error @below {{cannot split K over the grid with a 'bf16' accumulator: the partial sums would be rounded to 'bf16' before they are added (use an f32 C)}}
  %y = accel.matmul ins(%aa, %b : tensor<8x64xbf16>, tensor<64x16xbf16>) outs(%e : tensor<8x16xbf16>) -> tensor<8x16xbf16>
  return %y : tensor<8x16xbf16>
}

// -----

shard.grid @grid(shape = 2)
func.func @keys(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>) -> tensor<1x2x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ka = shard.shard %k to %s annotate_for_users : tensor<1x2x32x8xf32>
  %e = tensor.empty() : tensor<1x2x16x8xf32>
  // expected-error @below {{cannot split the key sequence dimension over the grid: softmax needs every key's score (split the batch, the heads, or the queries)}}
  %o = accel.attention ins(%q, %ka, %v : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>) outs(%e : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @head_dim(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>) -> tensor<1x2x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x2x16x8xf32>
  %e = tensor.empty() : tensor<1x2x16x8xf32>
  // expected-error @below {{cannot split the head dimension over the grid}}
  %o = accel.attention ins(%qa, %k, %v : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>) outs(%e : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @causal_queries(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x32x8xf32>, %v: tensor<1x2x32x8xf32>) -> tensor<1x2x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x2x16x8xf32>
  %e = tensor.empty() : tensor<1x2x16x8xf32>
  // expected-error @below {{cannot split the query sequence over the grid with a causal band or q_lengths (they depend on the global query position); split the batch or the heads}}
  %o = accel.attention causal ins(%qa, %k, %v : tensor<1x2x16x8xf32>, tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>) outs(%e : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @softmax_rows(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xa = shard.shard %x to %s annotate_for_users : tensor<8x32xf32>
  %e = tensor.empty() : tensor<8x32xf32>
  // expected-error @below {{cannot split the normalised dimension 1 over the grid}}
  %p = accel.softmax dimension(1) ins(%xa : tensor<8x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %p : tensor<8x32xf32>
}

// -----

// Local shards of different sizes (30 columns over 4 processes).
shard.grid @grid(shape = 4)
func.func @uneven(%x: tensor<8x16xf32>, %w: tensor<16x30xf32>) -> tensor<8x30xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  // expected-error @below {{argument #1 of @uneven splits dimension 1 (size 30) into 4 parts over grid @grid, which does not divide it (local shards would differ in size)}}
  %wa = shard.shard %w to %s annotate_for_users : tensor<16x30xf32>
  %e = tensor.empty() : tensor<8x30xf32>
  %y = accel.matmul ins(%x, %wa : tensor<8x16xf32>, tensor<16x30xf32>) outs(%e : tensor<8x30xf32>) -> tensor<8x30xf32>
  return %y : tensor<8x30xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @dynamic(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>, %e: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @below {{argument #0 of @dynamic splits dynamic dimension 0; accel shards static shapes only}}
  %xa = shard.shard %x to %s annotate_for_users : tensor<?x16xf32>
  %y = accel.matmul ins(%xa, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @halo(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  // expected-error @below {{argument #0 of @halo has halo sizes or explicit shard offsets; accel splits dimensions into equal parts only}}
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @axis(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[3]] : !shard.sharding
  // expected-error @below {{argument #0 of @axis names grid axis 3, but @grid has 1 axes}}
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @rank(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], []] : !shard.sharding
  // expected-error @below {{argument #0 of @rank has 3 split dimensions but rank 2}}
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

// expected-error @below {{accel-shard needs a grid of static, positive sizes (one process per element)}}
shard.grid @grid(shape = ?)
func.func @dynamic_grid(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

// expected-note @below {{the first grid is here}}
shard.grid @grid(shape = 2)
// expected-error @below {{accel-shard takes one shard.grid per module}}
shard.grid @other(shape = 4)

// -----

shard.grid @grid(shape = 2)
func.func @unreached(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %m = accel.matmul ins(%a, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  // expected-error @below {{has no sharding after propagation: annotate one of its operands or its result, or make the annotations around it agree}}
  %e2 = tensor.empty() : tensor<8x16xf32>
  %m2 = accel.matmul ins(%y, %w : tensor<8x16xf32>, tensor<16x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m, %m2 : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

shard.grid @grid(shape = 2)
// expected-error @below {{accel-shard takes functions of a single block}}
func.func @blocks(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %a = shard.shard %x to %s annotate_for_users : tensor<8x16xf32>
  cf.br ^next
^next:
  return %a : tensor<8x16xf32>
}

// -----

// Rows split on the way in, columns on the way out: no single sharding of
// the softmax agrees with both.
shard.grid @grid(shape = 2)
func.func @disagree(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %s annotate_for_users : tensor<8x8xf32>
  // expected-error @below {{has no sharding after propagation}}
  %e = tensor.empty() : tensor<8x8xf32>
  %p = accel.softmax dimension(1) ins(%xa : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %pa = shard.shard %p to %r : tensor<8x8xf32>
  return %pa : tensor<8x8xf32>
}
