// For gpu-host.test: a function whose C entry point, accel_launch, would
// be one of the host library's own functions.
func.func @launch(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %p = linalg.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%z : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %p : tensor<32x32xf32>
}
