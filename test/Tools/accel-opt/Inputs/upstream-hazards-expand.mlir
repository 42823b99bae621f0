// upstream-hazards.mlir writes this as MLIR bytecode (mlir-opt can skip
// its verifier): an empty reassociation group of tensor.expand_shape.
func.func @expand(%a: tensor<6x16xf32>) -> tensor<3x2x16xf32> {
  %o = tensor.expand_shape %a [[0, 1], []] output_shape [3, 2, 16] : tensor<6x16xf32> into tensor<3x2x16xf32>
  return %o : tensor<3x2x16xf32>
}
