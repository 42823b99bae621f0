// A 2 x 2 grid, 4 MPI processes (on 2 cores: oversubscribed): data
// parallel over axis 0, tensor parallel over axis 1. Each process checks its
// block, rank 0 the gathered results, against the fp64 oracle.
// RUN: accel-run %s --ranks=4 --repeat=0 --rank-timeout=120 | FileCheck %s
// Repeated calls reuse the row communicator the first call split
// (accel-cache-mpi-comms), and the last call's blocks are checked again.
// RUN: accel-run %s --ranks=4 --repeat=3 --rank-timeout=120 --entry=mlp_dp_tp | FileCheck %s --check-prefix=REUSE
// REUSE: communicator splits over 4 calls (rank 0): 1
// REUSE-NEXT: call 4: every part within the gate
// REUSE-NEXT: PASS

shard.grid @grid(shape = 2x2)

// Rows of x over axis 0, the MLP's hidden dimension over axis 1: the
// all-reduce sums within each row of the grid (a communicator split).
// CHECK-LABEL: @mlp_dp_tp
// CHECK: result #0 tensor<16x32xf32>: {{.*}} -> PASS
// CHECK: ranks: 4 of 4 local parts within the gate
// CHECK: communication (rank 0, one call): 1024 bytes all-reduced in 1 MPI_Allreduce, 0 bytes sent, 0 received, 1 communicator splits
// CHECK: PASS
func.func @mlp_dp_tp(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x32xf32>) -> tensor<16x32xf32> {
  %xs = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xa = shard.shard %x to %xs annotate_for_users : tensor<16x32xf32>
  %w1s = shard.sharding @grid split_axes = [[], [1]] : !shard.sharding
  %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<32x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %h = accel.matmul ins(%xa, %w1a : tensor<16x32xf32>, tensor<32x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %w2s = shard.sharding @grid split_axes = [[1]] : !shard.sharding
  %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<16x32xf32>
  %y = accel.matmul ins(%h, %w2a : tensor<16x64xf32>, tensor<64x32xf32>) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %ys = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ya = shard.shard %y to %ys : tensor<16x32xf32>
  return %ya : tensor<16x32xf32>
}

// K split over both axes (4 parts, axis 0 major), accumulating: one
// all-reduce over the whole grid (the world communicator).
// CHECK-LABEL: @k_over_grid
// CHECK: result #0 tensor<8x24xf32>: {{.*}} -> PASS
// CHECK: 768 bytes all-reduced in 1 MPI_Allreduce, 0 bytes sent, 0 received, 0 communicator splits
// CHECK: PASS
func.func @k_over_grid(%a: tensor<8x64xf32>, %b: tensor<64x24xf32>, %c: tensor<8x24xf32>) -> tensor<8x24xf32> {
  %as = shard.sharding @grid split_axes = [[], [0, 1]] : !shard.sharding
  %aa = shard.shard %a to %as annotate_for_users : tensor<8x64xf32>
  %y = accel.matmul accumulate ins(%aa, %b : tensor<8x64xf32>, tensor<64x24xf32>) outs(%c : tensor<8x24xf32>) -> tensor<8x24xf32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<8x24xf32>
  return %ya : tensor<8x24xf32>
}

// Batch over axis 0, heads over axis 1; one K/V head (MQA) and a
// broadcast causal-style i1 mask, both replicated.
// CHECK-LABEL: @attention_batch_heads
// CHECK: result #0 tensor<4x4x32x16xf32>: {{.*}} -> PASS
// CHECK: ranks: 4 of 4 local parts within the gate
// CHECK: PASS
func.func @attention_batch_heads(%q: tensor<4x4x32x16xf32>, %k: tensor<4x1x48x16xf32>, %v: tensor<4x1x48x16xf32>, %m: tensor<1x1x32x48xi1>) -> tensor<4x4x32x16xf32> {
  %s = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<4x4x32x16xf32>
  %e = tensor.empty() : tensor<4x4x32x16xf32>
  %o = accel.attention ins(%qa, %k, %v : tensor<4x4x32x16xf32>, tensor<4x1x48x16xf32>, tensor<4x1x48x16xf32>) mask(%m : tensor<1x1x32x48xi1>) outs(%e : tensor<4x4x32x16xf32>) -> tensor<4x4x32x16xf32>
  return %o : tensor<4x4x32x16xf32>
}

// CHECK: accel-run: 3 of 3 functions passed on 4 ranks
