// Sharded matmul and attention run as 2 MPI processes (accel-run --ranks):
// each process runs its block of the inputs, checks its block of every
// result, and rank 0 checks the gathered results against the fp64 oracle of
// the unsharded function (NaN-prefilled outputs).
// RUN: accel-run %s --ranks=2 --repeat=0 --rank-timeout=120 | FileCheck %s
// RUN: accel-run %s --ranks=2 --repeat=0 --rank-timeout=120 --seed=7 --dist=normal | FileCheck %s
// The scale model predicts the bytes each process hands to MPI; accel-run
// counted them at the MPI boundary (the CHECK lines below): 3840 and 1536,
// measured / predicted = 1.00.
// RUN: accel-opt %s --accel-scale-model="report=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=MODEL
// MODEL: mlp	x86-64-avx512	2	{{[^	]+}}	{{[^	]+}}	1	3840	3840
// MODEL: acc_i8	x86-64-avx512	2	{{[^	]+}}	{{[^	]+}}	1	1536	1536
// MODEL: attention_heads	x86-64-avx512	2	{{[^	]+}}	{{[^	]+}}	0	0	0

shard.grid @grid(shape = 2)

// Tensor-parallel MLP (Megatron): W1 split by columns, W2 by rows, one
// all-reduce of the 24 x 40 f32 result (3840 bytes).
// CHECK-LABEL: @mlp
// CHECK: result #0 tensor<24x40xf32>: {{.*}} -> PASS
// CHECK: ranks: 2 of 2 local parts within the gate
// CHECK: communication (rank 0, one call): 3840 bytes all-reduced in 1 MPI_Allreduce, 0 bytes sent, 0 received, 0 communicator splits
// CHECK: PASS
func.func @mlp(%x: tensor<24x48xf32>, %w1: tensor<48x96xf32>, %w2: tensor<96x40xf32>) -> tensor<24x40xf32> {
  %w1s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<48x96xf32>
  %e = tensor.empty() : tensor<24x96xf32>
  %h = accel.matmul ins(%x, %w1a : tensor<24x48xf32>, tensor<48x96xf32>) outs(%e : tensor<24x96xf32>) -> tensor<24x96xf32>
  %w2s = shard.sharding @grid split_axes = [[0], []] : !shard.sharding
  %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<96x40xf32>
  %e2 = tensor.empty() : tensor<24x40xf32>
  %y = accel.matmul ins(%h, %w2a : tensor<24x96xf32>, tensor<96x40xf32>) outs(%e2 : tensor<24x40xf32>) -> tensor<24x40xf32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<24x40xf32>
  return %ya : tensor<24x40xf32>
}

// Row-parallel, accumulating, with B transposed and int8 inputs: exact
// i32 partial sums, C added once.
// CHECK-LABEL: @acc_i8
// CHECK: result #0 tensor<16x24xi32>: max abs err 0.00e+00{{.*}} -> PASS
// CHECK: ranks: 2 of 2 local parts within the gate
// CHECK: 1536 bytes all-reduced in 1 MPI_Allreduce
// CHECK: PASS
func.func @acc_i8(%a: tensor<16x64xi8>, %b: tensor<24x64xi8>, %c: tensor<16x24xi32>) -> tensor<16x24xi32> {
  %as = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %aa = shard.shard %a to %as annotate_for_users : tensor<16x64xi8>
  %y = accel.matmul transpose_b accumulate ins(%aa, %b : tensor<16x64xi8>, tensor<24x64xi8>) outs(%c : tensor<16x24xi32>) -> tensor<16x24xi32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<16x24xi32>
  return %ya : tensor<16x24xi32>
}

// Head-parallel causal GQA attention (8 query heads, 2 KV heads) with
// per-sequence lengths: each process holds 4 query heads and their KV head;
// the output stays split by heads (gathered on rank 0). No communication.
// CHECK-LABEL: @attention_heads
// CHECK: result #0 tensor<2x8x40x32xf32>: {{.*}} -> PASS
// CHECK: ranks: 2 of 2 local parts within the gate
// CHECK: 0 bytes all-reduced in 0 MPI_Allreduce
// CHECK: PASS
func.func @attention_heads(%q: tensor<2x8x40x32xf32>, %k: tensor<2x2x56x32xf32>, %v: tensor<2x2x56x32xf32>, %len: tensor<2xi32>) -> tensor<2x8x40x32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<2x8x40x32xf32>
  %e = tensor.empty() : tensor<2x8x40x32xf32>
  %o = accel.attention causal ins(%qa, %k, %v : tensor<2x8x40x32xf32>, tensor<2x2x56x32xf32>, tensor<2x2x56x32xf32>) kv_lengths(%len : tensor<2xi32>) outs(%e : tensor<2x8x40x32xf32>) -> tensor<2x8x40x32xf32>
  return %o : tensor<2x8x40x32xf32>
}

// Batch-parallel bf16 attention into bf16, and a softmax split by rows.
// CHECK-LABEL: @batch_bf16
// CHECK: result #0 tensor<4x2x24x16xbf16>: {{.*}} -> PASS
// CHECK: result #1 tensor<6x40xf32>: {{.*}} -> PASS
// CHECK: ranks: 2 of 2 local parts within the gate
// CHECK: PASS
func.func @batch_bf16(%q: tensor<4x2x24x16xbf16>, %k: tensor<4x2x24x16xbf16>, %v: tensor<4x2x24x16xbf16>, %x: tensor<6x40xf32>) -> (tensor<4x2x24x16xbf16>, tensor<6x40xf32>) {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<4x2x24x16xbf16>
  %e = tensor.empty() : tensor<4x2x24x16xbf16>
  %o = accel.attention ins(%qa, %k, %v : tensor<4x2x24x16xbf16>, tensor<4x2x24x16xbf16>, tensor<4x2x24x16xbf16>) outs(%e : tensor<4x2x24x16xbf16>) -> tensor<4x2x24x16xbf16>
  %xa = shard.shard %x to %s annotate_for_users : tensor<6x40xf32>
  %e2 = tensor.empty() : tensor<6x40xf32>
  %p = accel.softmax dimension(1) ins(%xa : tensor<6x40xf32>) outs(%e2 : tensor<6x40xf32>) -> tensor<6x40xf32>
  return %o, %p : tensor<4x2x24x16xbf16>, tensor<6x40xf32>
}

// CHECK: accel-run: 4 of 4 functions passed on 2 ranks
