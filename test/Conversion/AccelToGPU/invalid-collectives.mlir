// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=sm_80"
// What the GPU host library cannot run as an NCCL (RCCL) call.

shard.grid @grid(shape = 2)
func.func @bitwise(%a: tensor<16x64xi8>, %b: tensor<32x64xi8>) -> tensor<16x32xi32> {
  %e = tensor.empty() : tensor<16x32xi32>
  %p = accel.matmul transpose_b ins(%a, %b : tensor<16x64xi8>, tensor<32x64xi8>) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  // expected-error @below {{reduces with 'bitwise_or', which NCCL's all-reduce has no operation for}}
  %s = shard.all_reduce %p on @grid grid_axes = [0] reduction = bitwise_or : tensor<16x32xi32> -> tensor<16x32xi32>
  return %s : tensor<16x32xi32>
}

// -----

shard.grid @grid(shape = 2)
func.func @no_nccl_type(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>, %x: tensor<8xf8E4M3FN>) -> (tensor<16x24xf32>, tensor<8xf8E4M3FN>) {
  %e = tensor.empty() : tensor<16x24xf32>
  %p = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  // expected-error @below {{all-reduces 'f8E4M3FN' elements, which NCCL has no data type for}}
  %s = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8xf8E4M3FN> -> tensor<8xf8E4M3FN>
  return %p, %s : tensor<16x24xf32>, tensor<8xf8E4M3FN>
}

// -----

shard.grid @grid(shape = 2)
func.func @reshard(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>) -> tensor<32x24xf32> {
  %e = tensor.empty() : tensor<16x24xf32>
  %p = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  // expected-error @below {{cannot run on the GPU: the host library runs shard.all_reduce as an NCCL (RCCL) call and nothing else of the shard dialect}}
  %g = shard.all_gather %p on @grid grid_axes = [0] gather_axis = 0 : tensor<16x24xf32> -> tensor<32x24xf32>
  return %g : tensor<32x24xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @widening(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>) -> tensor<16x24xf64> {
  %e = tensor.empty() : tensor<16x24xf32>
  %p = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  // expected-error @below {{runs on the GPU as an NCCL all-reduce of a statically shaped tensor into one of the same element type}}
  %s = shard.all_reduce %p on @grid grid_axes = [0] : tensor<16x24xf32> -> tensor<16x24xf64>
  return %s : tensor<16x24xf64>
}

// -----

shard.grid @grid(shape = 2)
func.func @constant(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>) -> (tensor<16x24xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<16x24xf32>
  %p = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %c = arith.constant dense<1.0> : tensor<8xf32>
  // expected-error @below {{all-reduces a value that is not a kernel buffer (a function argument or the result of a kernel)}}
  %s = shard.all_reduce %c on @grid grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %p, %s : tensor<16x24xf32>, tensor<8xf32>
}
