// Decode shapes of the GPU paged-attention kernels, compiled by
// ptxas-paged-attention.test for the registers they take (no spills);
// emulate-paged-attention.mlir checks their numerics. Llama 3 8B's layer
// (32 query heads over 8 KV heads, D 128) at a 32k context in 16-token
// pages: a batch of 8 bf16 steps; one sequence's speculative step of 4
// queries (16 packed rows a KV head) in f16; and f32 caches.
func.func @llama_bf16(%q: tensor<8x32x1x128xbf16>, %kc: tensor<16384x16x8x128xbf16>, %vc: tensor<16384x16x8x128xbf16>, %bt: tensor<8x2048xi32>, %len: tensor<8xi32>) -> tensor<8x32x1x128xbf16> {
  %o = tensor.empty() : tensor<8x32x1x128xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<8x32x1x128xbf16>, tensor<16384x16x8x128xbf16>, tensor<16384x16x8x128xbf16>) block_table(%bt : tensor<8x2048xi32>) kv_lengths(%len : tensor<8xi32>) outs(%o : tensor<8x32x1x128xbf16>) -> tensor<8x32x1x128xbf16>
  return %r : tensor<8x32x1x128xbf16>
}

func.func @speculative_f16(%q: tensor<1x32x4x128xf16>, %kc: tensor<4096x16x8x128xf16>, %vc: tensor<4096x16x8x128xf16>, %bt: tensor<1x2048xi64>, %len: tensor<1xi64>) -> tensor<1x32x4x128xf16> {
  %o = tensor.empty() : tensor<1x32x4x128xf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<1x32x4x128xf16>, tensor<4096x16x8x128xf16>, tensor<4096x16x8x128xf16>) block_table(%bt : tensor<1x2048xi64>) kv_lengths(%len : tensor<1xi64>) outs(%o : tensor<1x32x4x128xf16>) -> tensor<1x32x4x128xf16>
  return %r : tensor<1x32x4x128xf16>
}

func.func @llama_f32(%q: tensor<4x32x1x128xf32>, %kc: tensor<4096x16x8x128xf32>, %vc: tensor<4096x16x8x128xf32>, %bt: tensor<4x512xi32>, %len: tensor<4xi32>) -> tensor<4x32x1x128xf32> {
  %o = tensor.empty() : tensor<4x32x1x128xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<4x32x1x128xf32>, tensor<4096x16x8x128xf32>, tensor<4096x16x8x128xf32>) block_table(%bt : tensor<4x512xi32>) kv_lengths(%len : tensor<4xi32>) outs(%o : tensor<4x32x1x128xf32>) -> tensor<4x32x1x128xf32>
  return %r : tensor<4x32x1x128xf32>
}
