// Decode attention over a paged KV cache as an AOT library: a pool and a
// batch sized at run time, GQA (8 query heads over 2 KV heads), f16 pages
// of 16 tokens, up to 5 pages a sequence; and a causal speculative step
// (3 queries) in f32.
func.func @decode(%q: tensor<?x8x1x64xf16>, %kc: tensor<?x16x2x64xf16>,
                  %vc: tensor<?x16x2x64xf16>, %bt: tensor<?x5xi32>,
                  %len: tensor<?xi32>, %o: tensor<?x8x1x64xf32>)
    -> tensor<?x8x1x64xf32> {
  %r = accel.paged_attention
         ins(%q, %kc, %vc : tensor<?x8x1x64xf16>, tensor<?x16x2x64xf16>,
                            tensor<?x16x2x64xf16>)
         block_table(%bt : tensor<?x5xi32>) kv_lengths(%len : tensor<?xi32>)
         outs(%o : tensor<?x8x1x64xf32>) -> tensor<?x8x1x64xf32>
  return %r : tensor<?x8x1x64xf32>
}

func.func @speculative(%q: tensor<2x4x3x32xf32>, %kc: tensor<7x8x4x32xf32>,
                       %vc: tensor<7x8x4x32xf32>, %bt: tensor<2x4xi64>,
                       %len: tensor<2xi64>, %o: tensor<2x4x3x32xf32>)
    -> tensor<2x4x3x32xf32> {
  %r = accel.paged_attention causal
         ins(%q, %kc, %vc : tensor<2x4x3x32xf32>, tensor<7x8x4x32xf32>,
                            tensor<7x8x4x32xf32>)
         block_table(%bt : tensor<2x4xi64>) kv_lengths(%len : tensor<2xi64>)
         outs(%o : tensor<2x4x3x32xf32>) -> tensor<2x4x3x32xf32>
  return %r : tensor<2x4x3x32xf32>
}
