// accel-scale-model needs a roofline estimate for every op it sums.
// RUN: accel-opt %s --accel-scale-model="target=h100" -o /dev/null -verify-diagnostics

shard.grid @grid(shape = 2)
func.func @dyn(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>, %e: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<16x16xf32>
  // expected-error @below {{accel-scale-model: no roofline estimate on h100 (dynamic shapes, or a precision it has no peak for)}}
  %y = accel.matmul ins(%x, %wa : tensor<?x16xf32>, tensor<16x16xf32>) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}
