// Sharded functions for the GPU host libraries (gpu-sharded.test): each
// process's kernels, with NCCL (RCCL) all-reduces between them.
shard.grid @grid(shape = 2)

// Tensor-parallel MLP (Megatron): W1 split by columns (its ReLU stays
// local), W2 by rows; the partial sums are all-reduced, then the bias is
// added by a kernel after the all-reduce.
func.func @mlp(%x: tensor<16x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x24xf32>, %bias: tensor<24xf32>) -> tensor<16x24xf32> {
  %w1s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %w1a = shard.shard %w1 to %w1s annotate_for_users : tensor<32x64xf32>
  %e = tensor.empty() : tensor<16x64xf32>
  %h = accel.matmul ins(%x, %w1a : tensor<16x32xf32>, tensor<32x64xf32>) outs(%e : tensor<16x64xf32>) -> tensor<16x64xf32>
  %zero = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<16x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x64xf32>) outs(%re : tensor<16x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x64xf32>
  %w2s = shard.sharding @grid split_axes = [[0], []] : !shard.sharding
  %w2a = shard.shard %w2 to %w2s annotate_for_users : tensor<64x24xf32>
  %e2 = tensor.empty() : tensor<16x24xf32>
  %y = accel.matmul ins(%r, %w2a : tensor<16x64xf32>, tensor<64x24xf32>) outs(%e2 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %ys = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %ys : tensor<16x24xf32>
  %be = tensor.empty() : tensor<16x24xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%ya, %bias : tensor<16x24xf32>, tensor<24xf32>) outs(%be : tensor<16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x24xf32>
  %zs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %za = shard.shard %z to %zs : tensor<16x24xf32>
  return %za : tensor<16x24xf32>
}

// Row-parallel, accumulating, int8: exact i32 partial sums, all-reduced,
// then C added once (B stored [N, K], as the 8-bit GPU kernels read it).
func.func @acc_i8(%a: tensor<16x64xi8>, %b: tensor<32x64xi8>, %c: tensor<16x32xi32>) -> tensor<16x32xi32> {
  %as = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %aa = shard.shard %a to %as annotate_for_users : tensor<16x64xi8>
  %y = accel.matmul transpose_b accumulate ins(%aa, %b : tensor<16x64xi8>, tensor<32x64xi8>) outs(%c : tensor<16x32xi32>) -> tensor<16x32xi32>
  %rs = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %rs : tensor<16x32xi32>
  return %ya : tensor<16x32xi32>
}

// Head-parallel attention: each process holds 2 of the 4 heads; no
// communication (its entry point takes a communicator it ignores).
func.func @heads(%q: tensor<1x4x32x32xf16>, %k: tensor<1x4x48x32xf16>, %v: tensor<1x4x48x32xf16>) -> tensor<1x4x32x32xf16> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x4x32x32xf16>
  %e = tensor.empty() : tensor<1x4x32x32xf16>
  %o = accel.attention ins(%qa, %k, %v : tensor<1x4x32x32xf16>, tensor<1x4x48x32xf16>, tensor<1x4x48x32xf16>) outs(%e : tensor<1x4x32x32xf16>) -> tensor<1x4x32x32xf16>
  %oa = shard.shard %o to %s : tensor<1x4x32x32xf16>
  return %oa : tensor<1x4x32x32xf16>
}
