func.func @two(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %c = tensor.empty() : tensor<32x32xf32>
  %0 = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = accel.matmul ins(%b, %a : tensor<32x32xf16>, tensor<32x32xf16>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0, %1 : tensor<32x32xf32>, tensor<32x32xf32>
}
