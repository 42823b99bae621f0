// Grouped-query causal attention (32 query heads, 8 KV heads) followed by the
// output projection: the two ops accel is built around, plus a transform
// script that tiles them through their TilingInterface.
//
//   build/bin/accel-opt examples/attention.mlir \
//       --accel-attach-target=name=h100 --transform-interpreter --canonicalize
//
// attaches the H100 description and tiles attention into [1 batch, 4 query
// heads = 1 KV head, 128 queries] blocks, and the projection into 128x256
// output tiles. test/Examples/attention.mlir checks this command's output.
func.func @attention_block(%q: tensor<1x32x512x128xbf16>,
                           %k: tensor<1x8x512x128xbf16>,
                           %v: tensor<1x8x512x128xbf16>,
                           %w: tensor<4096x4096xbf16>) -> tensor<512x4096xf32> {
  %o_init = tensor.empty() : tensor<1x32x512x128xbf16>
  %o = accel.attention causal
         ins(%q, %k, %v : tensor<1x32x512x128xbf16>, tensor<1x8x512x128xbf16>,
                          tensor<1x8x512x128xbf16>)
         outs(%o_init : tensor<1x32x512x128xbf16>) -> tensor<1x32x512x128xbf16>
  // [1, 32, 512, 128] -> [512, 32 * 128]: the heads side by side per token.
  %t_init = tensor.empty() : tensor<1x512x32x128xbf16>
  %t = linalg.transpose ins(%o : tensor<1x32x512x128xbf16>)
                        outs(%t_init : tensor<1x512x32x128xbf16>)
                        permutation = [0, 2, 1, 3]
  %x = tensor.collapse_shape %t [[0, 1], [2, 3]]
         : tensor<1x512x32x128xbf16> into tensor<512x4096xbf16>
  %y_init = tensor.empty() : tensor<512x4096xf32>
  %y = accel.matmul transpose_b
         ins(%x, %w : tensor<512x4096xbf16>, tensor<4096x4096xbf16>)
         outs(%y_init : tensor<512x4096xf32>) -> tensor<512x4096xf32>
  return %y : tensor<512x4096xf32>
}

module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(
      %root: !transform.any_op {transform.readonly}) {
    %attn = transform.structured.match ops{["accel.attention"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %attn_tile, %attn_loops:3 = transform.structured.tile_using_for %attn
      tile_sizes [1, 4, 128, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                !transform.any_op, !transform.any_op)
    %mm = transform.structured.match ops{["accel.matmul"]} in %root
      : (!transform.any_op) -> !transform.any_op
    %mm_tile, %mm_loops:2 = transform.structured.tile_using_for %mm
      tile_sizes [128, 256, 0]
      : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                !transform.any_op)
    transform.yield
  }
}
