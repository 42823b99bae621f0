// accel-lower-shard-to-mpi refuses what upstream's MPI lowering cannot
// take, with a located error that says what to change.
// RUN: accel-opt %s --accel-shard --accel-lower-shard-to-mpi -verify-diagnostics

// A head-split result annotated replicated needs an all-gather, which
// upstream's convert-shard-to-mpi (MLIR 22) does not lower.
shard.grid @grid(shape = 2)
func.func @gathered(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x4x16x8xf32>
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %o = accel.attention ins(%qa, %k, %v : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) outs(%e : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  // expected-error @below {{cannot run on MPI: upstream's convert-shard-to-mpi (MLIR 22) lowers all_reduce only, and this all_gather reshards a value between the annotations; keep it as it is computed (accel-run gathers split results)}}
  %oa = shard.shard %o to %r : tensor<1x4x16x8xf32>
  return %oa : tensor<1x4x16x8xf32>
}
