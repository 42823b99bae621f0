// Valid IR that upstream-hazards.mlir checks accel-opt still takes: the
// keywords' lists in the spellings linalg's parsers accept (blanks, comments
// and NUL between tokens, negative numbers where the verifier allows them
// is not the point here), the generic form's dictionaries, and names and
// strings that contain the keywords.
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @valid(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<4x2x3xf32>,
                 %d: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [ 1 , // one
    0 ] {note = "permutation = oops, dimensions = {"}
  %g = "linalg.transpose"(%a, %b) <{permutation = array<i64: 1, 0>}> ({
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }) {dimensions = "x"} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %br = linalg.broadcast ins(%a : tensor<2x3xf32>) outs(%c : tensor<4x2x3xf32>) dimensions = [0]
  %r = linalg.reduce { arith.addf } ins(%a : tensor<2x3xf32>) outs(%d : tensor<2xf32>) dimensions = [1]
  %e = tensor.expand_shape %d [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
  %f = tensor.collapse_shape %e [[0, 1]] : tensor<1x2xf32> into tensor<2xf32>
  return %t, %g, %br, %r, %f : tensor<3x2xf32>, tensor<3x2xf32>, tensor<4x2x3xf32>, tensor<2xf32>, tensor<2xf32>
}
