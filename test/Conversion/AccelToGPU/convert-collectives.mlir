// RUN: accel-opt %s -split-input-file --convert-accel-to-gpu="chip=sm_80" | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-nvptx-pipeline="chip=sm_80" -o /dev/null
// A partitioned function's shard.all_reduce stays between the kernels as a
// step of the host program: the gpu.module's accel.collectives says what
// it reduces (buffer names, element type and count, grid and axes) and how
// many of the function's kernels run before it. The kernels read and write
// its buffers by those names.

// CHECK-LABEL: gpu.module @row_parallel_kernels
// CHECK-SAME: accel.collectives = [{byte_size = 1536 : i64, count = 384 : i64, dtype = "f32", grid = array<i64: 2, 2>, grid_axes = array<i64: 1>, input = "tmp0", kind = "all_reduce", output = "tmp1", position = 1 : i64, reduction = "max"}]
// CHECK: gpu.func @row_parallel_0
// CHECK-SAME: access = ["in", "in", "out"], args = ["arg0", "arg1", "tmp0"]
// CHECK: gpu.func @row_parallel_elementwise0
// CHECK-SAME: access = ["in", "in", "out"], args = ["tmp1", "arg2", "result0"]
shard.grid @grid(shape = 2x2)
func.func @row_parallel(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>, %bias: tensor<16x24xf32>) -> tensor<16x24xf32> attributes {accel.grid = array<i64: 2, 2>} {
  %e = tensor.empty() : tensor<16x24xf32>
  %p = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>) outs(%e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %s = shard.all_reduce %p on @grid grid_axes = [1] reduction = max : tensor<16x24xf32> -> tensor<16x24xf32>
  %e2 = tensor.empty() : tensor<16x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%s, %bias : tensor<16x24xf32>, tensor<16x24xf32>) outs(%e2 : tensor<16x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.addf %x, %y : f32
    linalg.yield %z : f32
  } -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

// -----

// The all-reduce writes the function's result: the last step, after every
// kernel.
// CHECK-LABEL: gpu.module @last_kernels
// CHECK-SAME: accel.collectives = [{byte_size = 2048 : i64, count = 512 : i64, dtype = "i32", grid = array<i64: 4>, grid_axes = array<i64: 0>, input = "tmp0", kind = "all_reduce", output = "result0", position = 1 : i64, reduction = "sum"}]
shard.grid @grid(shape = 4)
func.func @last(%a: tensor<16x64xi8>, %b: tensor<32x64xi8>) -> tensor<16x32xi32> attributes {accel.grid = array<i64: 4>} {
  %e = tensor.empty() : tensor<16x32xi32>
  %p = accel.matmul transpose_b ins(%a, %b : tensor<16x64xi8>, tensor<32x64xi8>) outs(%e : tensor<16x32xi32>) -> tensor<16x32xi32>
  %s = shard.all_reduce %p on @grid grid_axes = [0] : tensor<16x32xi32> -> tensor<16x32xi32>
  return %s : tensor<16x32xi32>
}
