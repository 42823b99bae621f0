// cpu-kernels.mlir with @mm_inplace taking bf16 A and B of the same shapes:
// another specialisation under the same name and module (cpu.test, MIXED).
module @kernels {
  func.func @mm_inplace(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %r = accel.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
  func.func @two(%a: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
    %r = arith.addf %a, %a : tensor<?x4xf32>
    return %r, %a : tensor<?x4xf32>, tensor<?x4xf32>
  }
}
