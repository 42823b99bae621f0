// Two public functions (one in place on an out-argument, one with two
// results and a dynamic dimension) and a private helper that is not
// exported, for accel-compile --target=cpu.
module @kernels {
  func.func @mm_inplace(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %r = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
  func.func @two(%a: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
    %r = call @helper(%a) : (tensor<?x4xf32>) -> tensor<?x4xf32>
    return %r, %a : tensor<?x4xf32>, tensor<?x4xf32>
  }
  func.func private @helper(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
    %r = arith.addf %a, %a : tensor<?x4xf32>
    return %r : tensor<?x4xf32>
  }
}
