// Kernels with dynamic sizes that their ops tie together, for
// Inputs/cpu-dynamic-sizes.c: the wrapper must refuse a call whose sizes
// disagree (ACCEL_ERR_SHAPE) instead of running the kernel.
module @dyn {
  // K of A and of B.
  func.func @dynk(%a: tensor<8x?xf32>, %b: tensor<?x4xf32>) -> tensor<8x4xf32> {
    %c = tensor.empty() : tensor<8x4xf32>
    %r = accel.matmul ins(%a, %b : tensor<8x?xf32>, tensor<?x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %r : tensor<8x4xf32>
  }
  // Every size dynamic: K, and M and N of the result through tensor.dim.
  func.func @dynmn(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %m = tensor.dim %a, %c0 : tensor<?x?xf32>
    %n = tensor.dim %b, %c1 : tensor<?x?xf32>
    %c = tensor.empty(%m, %n) : tensor<?x?xf32>
    %r = accel.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
  // B as [N, K], accumulating into an out-argument: K, M and N.
  func.func @dyntb(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %r = accel.matmul transpose_b accumulate ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
    return %r : tensor<?x?xf32>
  }
  // A linalg op: its loop sizes.
  func.func @add(%x: tensor<?xf32>, %y: tensor<?xf32>, %z: tensor<?xf32>) -> tensor<?xf32> {
    %r = linalg.add ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%z : tensor<?xf32>) -> tensor<?xf32>
    return %r : tensor<?xf32>
  }
  // Softmax: input and output of one shape, one size fixed by a cast.
  func.func @sm(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %xs = tensor.cast %x : tensor<?x?xf32> to tensor<?x5xf32>
    %ys = tensor.cast %y : tensor<?x?xf32> to tensor<?x5xf32>
    %r = accel.softmax dimension(1) ins(%xs : tensor<?x5xf32>) outs(%ys : tensor<?x5xf32>) -> tensor<?x5xf32>
    %rd = tensor.cast %r : tensor<?x5xf32> to tensor<?x?xf32>
    return %rd : tensor<?x?xf32>
  }
  // Attention: the head dimension of Q and K, the key sequence of K and V
  // (head counts must be static for the CPU lowering).
  func.func @att(%q: tensor<1x2x4x?xf32>, %k: tensor<1x2x?x?xf32>, %v: tensor<1x2x?x8xf32>, %o: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
    %r = accel.attention ins(%q, %k, %v : tensor<1x2x4x?xf32>, tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) outs(%o : tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
    return %r : tensor<1x2x4x8xf32>
  }
}
