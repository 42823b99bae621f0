// The accel ops' sharding models refuse what their local kernels cannot
// take when upstream's propagation and partitioning run without accel-shard
// (which checks the function's annotations first: accel-shard-invalid.mlir).
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(sharding-propagation,shard-partition))" -verify-diagnostics

// Local shards of different sizes (30 columns over 4 processes).
shard.grid @grid(shape = 4)
func.func @uneven(%x: tensor<8x16xf32>, %w: tensor<16x30xf32>) -> tensor<8x30xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<16x30xf32>
  %e = tensor.empty() : tensor<8x30xf32>
  // expected-error @below {{cannot split dimension 1 (size 30) of its operand #1 into 4 equal parts over grid @grid}}
  %y = accel.matmul ins(%x, %wa : tensor<8x16xf32>, tensor<16x30xf32>) outs(%e : tensor<8x30xf32>) -> tensor<8x30xf32>
  return %y : tensor<8x30xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @dynamic(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>, %e: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %s annotate_for_users : tensor<?x16xf32>
  // expected-error @below {{cannot split the dynamic dimension 0 of its operand #0 over the grid (static shapes only)}}
  %y = accel.matmul ins(%xa, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
