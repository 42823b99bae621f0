// An i8 matmul with B as [N, K], remainders along M, N and K (4-byte
// copies), batched, accumulating: for invalid-options.mlir and
// ptxas-8bit.mlir.
func.func @i8(%a: tensor<2x100x36xi8>, %b: tensor<2x72x36xi8>, %c: tensor<2x100x72xi32>) -> tensor<2x100x72xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x100x36xi8>, tensor<2x72x36xi8>) outs(%c : tensor<2x100x72xi32>) -> tensor<2x100x72xi32>
  return %0 : tensor<2x100x72xi32>
}
