// upstream-hazards.mlir: an empty reassociation group in an op that does
// not parse; MLIR's parser reports the syntax error.
func.func @broken(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  // An empty group, but the op does not parse.
  %o = tensor.expand_shape %a [[0, 1], []] oops
  return %o : tensor<3x2x16xf32>
}
