// int4 groups must be even (accel-lower-precision-weight-only-invalid.mlir).
func.func @odd_group(%a: tensor<2x96xf32>) -> tensor<2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<96x4xf32>
  %c = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{cannot quantise its constant weights (weight-only=int4): int4 needs an even K and an even group (two weights a byte), got K = 96 and group 3}}
  %0 = accel.matmul ins(%a, %b : tensor<2x96xf32>, tensor<96x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
