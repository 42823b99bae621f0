// An i8 x i8 -> i32 matmul long enough (K = 2^17 + 1) for the i32 sum to
// overflow with the extreme inputs.
func.func @i8_long_k(%a: tensor<1x131073xi8>, %b: tensor<131073x2xi8>) -> tensor<1x2xi32> {
  %c = tensor.empty() : tensor<1x2xi32>
  %0 = accel.matmul ins(%a, %b : tensor<1x131073xi8>, tensor<131073x2xi8>) outs(%c : tensor<1x2xi32>) -> tensor<1x2xi32>
  return %0 : tensor<1x2xi32>
}
