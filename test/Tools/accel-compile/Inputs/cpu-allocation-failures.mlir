// Kernels whose temporaries are sized by the caller at run time, for
// Inputs/cpu-allocation-failures.c: a temporary that cannot be allocated
// must end the call with ACCEL_ERR_ALLOC, freeing what the call holds,
// instead of a kernel that faults or writes past a wrapped-around size.
module @allocs {
  // A static temporary (2 MiB, allocated first), then one of d0 x 1024
  // floats: out[j] = 512 + d0.
  func.func @colsum(%a: tensor<?x?xf32>) -> tensor<1024xf32> {
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %s0 = tensor.empty() : tensor<512x1024xf32>
    %s = linalg.fill ins(%one : f32) outs(%s0 : tensor<512x1024xf32>) -> tensor<512x1024xf32>
    %r0 = tensor.empty() : tensor<1024xf32>
    %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1024xf32>) -> tensor<1024xf32>
    %r2 = linalg.reduce ins(%s : tensor<512x1024xf32>) outs(%r1 : tensor<1024xf32>) dimensions = [0]
      (%x: f32, %y: f32) {
        %t = arith.addf %x, %y : f32
        linalg.yield %t : f32
      }
    %e = tensor.empty(%d0) : tensor<?x1024xf32>
    %t = linalg.fill ins(%one : f32) outs(%e : tensor<?x1024xf32>) -> tensor<?x1024xf32>
    %r = linalg.reduce ins(%t : tensor<?x1024xf32>) outs(%r2 : tensor<1024xf32>) dimensions = [0]
      (%x: f32, %y: f32) {
        %u = arith.addf %x, %y : f32
        linalg.yield %u : f32
      }
    return %r : tensor<1024xf32>
  }
  // A temporary of d0 x d1 floats: with d1 = 0 it is empty however large
  // d0 is, with d1 = 1 and d0 = 2^62 its 2^64 bytes overflow. out[j] = d0.
  func.func @both(%a: tensor<?x?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
    %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
    %t = linalg.fill ins(%one : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
    %r0 = tensor.empty(%d1) : tensor<?xf32>
    %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
    %r = linalg.reduce ins(%t : tensor<?x?xf32>) outs(%r1 : tensor<?xf32>) dimensions = [0]
      (%x: f32, %y: f32) {
        %u = arith.addf %x, %y : f32
        linalg.yield %u : f32
      }
    return %r : tensor<?xf32>
  }
  // A temporary of (d0 - 10) x 4 floats: negative below d0 = 10.
  // out[j] = d0 - 10.
  func.func @negative(%a: tensor<?xf32>) -> tensor<4xf32> {
    %c0 = arith.constant 0 : index
    %c10 = arith.constant 10 : index
    %d0 = tensor.dim %a, %c0 : tensor<?xf32>
    %n = arith.subi %d0, %c10 : index
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty(%n) : tensor<?x4xf32>
    %t = linalg.fill ins(%one : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
    %r0 = tensor.empty() : tensor<4xf32>
    %r1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<4xf32>) -> tensor<4xf32>
    %r = linalg.reduce ins(%t : tensor<?x4xf32>) outs(%r1 : tensor<4xf32>) dimensions = [0]
      (%x: f32, %y: f32) {
        %u = arith.addf %x, %y : f32
        linalg.yield %u : f32
      }
    return %r : tensor<4xf32>
  }
  // One temporary returned twice: both results are copied out of it before
  // it is freed (the wrapper used to free it after copying the first and
  // read the second from freed memory). out0[j] = out1[j] = 2.
  func.func @twice(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %a, %c0 : tensor<?xf32>
    %two = arith.constant 2.0 : f32
    %e = tensor.empty(%d0) : tensor<?xf32>
    %t = linalg.fill ins(%two : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    return %t, %t : tensor<?xf32>, tensor<?xf32>
  }
}
