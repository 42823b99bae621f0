// A plain (transform-free) grouped-query causal attention for the
// ahead-of-time C example: B=1, Hq=4 query heads sharing Hkv=2 key/value
// heads, S=64, D=32, f32. Compiled by accel-compile --target=cpu and called
// from examples/attention_aot.c (see docs/aot.md).
func.func @attention(%q: tensor<1x4x64x32xf32>, %k: tensor<1x2x64x32xf32>,
                     %v: tensor<1x2x64x32xf32>) -> tensor<1x4x64x32xf32> {
  %o = tensor.empty() : tensor<1x4x64x32xf32>
  %r = accel.attention causal ins(%q, %k, %v : tensor<1x4x64x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32>) outs(%o : tensor<1x4x64x32xf32>) -> tensor<1x4x64x32xf32>
  return %r : tensor<1x4x64x32xf32>
}
