// bf16 and int8 matmuls for accel-compile --target=cpu with AMX features
// (cpu-amx.test): ragged sizes (no 16 or 32 divides M, N or K; the int8 one accumulates into C), so the AMX
// kernels' padded A, B and C copies are all exercised.
module @amx {
  func.func @mm_bf16(%a: tensor<61x100xbf16>, %b: tensor<100x45xbf16>) -> tensor<61x45xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<61x45xf32>
    %c = linalg.fill ins(%z : f32) outs(%e : tensor<61x45xf32>) -> tensor<61x45xf32>
    %r = accel.matmul ins(%a, %b : tensor<61x100xbf16>, tensor<100x45xbf16>) outs(%c : tensor<61x45xf32>) -> tensor<61x45xf32>
    return %r : tensor<61x45xf32>
  }
  func.func @mm_i8(%a: tensor<70x130xi8>, %b: tensor<130x33xi8>, %c: tensor<70x33xi32>) -> tensor<70x33xi32> {
    %r = accel.matmul accumulate ins(%a, %b : tensor<70x130xi8>, tensor<130x33xi8>) outs(%c : tensor<70x33xi32>) -> tensor<70x33xi32>
    return %r : tensor<70x33xi32>
  }
}
