// A tensor-parallel MLP over 2 processes (cpu-sharded.test): W1 split by
// columns, W2 by rows; one all-reduce makes the replicated result.
module @tp_mlp {
  shard.grid @grid(shape = 2)
  func.func @mlp(%x: tensor<8x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>) -> tensor<8x16xf32> {
    %w1s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
    %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<32x64xf32>
    %e = tensor.empty() : tensor<8x64xf32>
    %h = accel.matmul ins(%x, %w1a : tensor<8x32xf32>, tensor<32x64xf32>) outs(%e : tensor<8x64xf32>) -> tensor<8x64xf32>
    %w2s = shard.sharding @grid split_axes = [[0], []] : !shard.sharding
    %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<64x16xf32>
    %e2 = tensor.empty() : tensor<8x16xf32>
    %y = accel.matmul ins(%h, %w2a : tensor<8x64xf32>, tensor<64x16xf32>) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
    %ya = shard.shard %y to %rs : tensor<8x16xf32>
    return %ya : tensor<8x16xf32>
  }
}
