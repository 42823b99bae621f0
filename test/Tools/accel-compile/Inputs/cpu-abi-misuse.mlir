// Kernels for Inputs/cpu-abi-misuse.c: a matmul whose result is not an
// out-argument (the kernel's buffer is copied into the caller's), and a
// square one for calls whose result aliases an argument.
module @misuse {
  func.func @mm(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>) -> tensor<8x4xf32> {
    %c = tensor.empty() : tensor<8x4xf32>
    %r = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
  func.func @square(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %c = tensor.empty() : tensor<4x4xf32>
    %r = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
    return %r : tensor<4x4xf32>
  }
}
