// Two sequences over a pool of 6 pages of 4 tokens; accel-run reads the
// block table and the lengths from .npy files (paged-attention-bad-data.test).
func.func @decode(%q: tensor<2x4x1x16xf32>, %kc: tensor<6x4x2x16xf32>, %vc: tensor<6x4x2x16xf32>, %bt: tensor<2x3xi32>, %len: tensor<2xi32>) -> tensor<2x4x1x16xf32> {
  %o = tensor.empty() : tensor<2x4x1x16xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x4x1x16xf32>, tensor<6x4x2x16xf32>, tensor<6x4x2x16xf32>) block_table(%bt : tensor<2x3xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x4x1x16xf32>) -> tensor<2x4x1x16xf32>
  return %r : tensor<2x4x1x16xf32>
}
