// Row-parallel matmul over 2 processes (ranks.test).
shard.grid @grid(shape = 2)
func.func @row_parallel(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<32x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = accel.matmul ins(%x, %wa : tensor<8x32xf32>, tensor<32x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %r : tensor<8x16xf32>
  return %ya : tensor<8x16xf32>
}
