func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = accel.softmax dimension(1) ins(%a : tensor<4x8xf32>)
