// A function name that would leave the --save-outputs folder.
func.func @"../escaped"(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %y = tensor.empty() : tensor<3x5xf32>
  %0 = accel.softmax dimension(1) ins(%x : tensor<3x5xf32>) outs(%y : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}
