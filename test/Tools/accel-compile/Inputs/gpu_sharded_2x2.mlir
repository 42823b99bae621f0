// A 2x2 grid (gpu-sharded.test): data parallelism over axis 0 (the rows of
// x and of the result), tensor parallelism over axis 1 (W1's columns, W2's
// rows). The all-reduce sums over axis 1 only: each pair of processes that
// share a row block reduces in a communicator split from the caller's.
shard.grid @grid(shape = 2x2)

func.func @mlp(%x: tensor<32x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x24xf32>) -> tensor<32x24xf32> {
  %xs = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %xs annotate_for_users : tensor<32x32xf32>
  %w1s = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<32x64xf32>
  %e = tensor.empty() : tensor<32x64xf32>
  %h = accel.matmul ins(%xa, %w1a : tensor<32x32xf32>, tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %w2s = shard.sharding @grid split_axes = [[1], []] : !shard.sharding
  %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<64x24xf32>
  %e2 = tensor.empty() : tensor<32x24xf32>
  %y = accel.matmul ins(%h, %w2a : tensor<32x64xf32>, tensor<64x24xf32>) outs(%e2 : tensor<32x24xf32>) -> tensor<32x24xf32>
  %ys = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ya = shard.shard %y to %ys : tensor<32x24xf32>
  return %ya : tensor<32x24xf32>
}
