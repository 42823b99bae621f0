// linalg.softmax that no attention chain absorbs, run through the CPU
// pipeline: accel-raise makes it accel.softmax (f32, f16, bf16, f8) or, for
// element types accel.softmax lacks, convert-accel-to-linalg decomposes it.
// The fp64 oracle evaluates linalg.softmax as written.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options="threads=2" --num-threads=2 | FileCheck %s
// The first, third and fourth are raised; nothing is left for the
// LLVM translation:
// RUN: accel-opt %s --accel-raise | FileCheck %s --check-prefix=CHECK-RAISED
// RUN: accel-opt %s --accel-cpu-pipeline | FileCheck %s --check-prefix=CHECK-LLVM
// CHECK-RAISED-COUNT-3: accel.softmax
// CHECK-RAISED-NOT: accel.softmax
// CHECK-LLVM-NOT: {{(linalg|accel)\.softmax}}
// CHECK-LABEL: @dim0_3d
// CHECK: PASS
// CHECK-LABEL: @last_dim_3d_f64
// CHECK: PASS
// CHECK-LABEL: @last_dim_3d_bf16
// CHECK: PASS
// CHECK-LABEL: @softmax_over_queries
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

// Over the outermost of three dims: rows strided across the tensor.
func.func @dim0_3d(%x: tensor<9x5x33xf32>) -> tensor<9x5x33xf32> {
  %e = tensor.empty() : tensor<9x5x33xf32>
  %y = linalg.softmax dimension(0) ins(%x : tensor<9x5x33xf32>) outs(%e : tensor<9x5x33xf32>) -> tensor<9x5x33xf32>
  return %y : tensor<9x5x33xf32>
}

// f64 has no accel.softmax: upstream's decomposition, in f64.
func.func @last_dim_3d_f64(%x: tensor<3x7x65xf64>) -> tensor<3x7x65xf64> {
  %e = tensor.empty() : tensor<3x7x65xf64>
  %y = linalg.softmax dimension(2) ins(%x : tensor<3x7x65xf64>) outs(%e : tensor<3x7x65xf64>) -> tensor<3x7x65xf64>
  return %y : tensor<3x7x65xf64>
}

// Over the last dim, in bf16.
func.func @last_dim_3d_bf16(%x: tensor<3x7x65xbf16>) -> tensor<3x7x65xbf16> {
  %e = tensor.empty() : tensor<3x7x65xbf16>
  %y = linalg.softmax dimension(2) ins(%x : tensor<3x7x65xbf16>) outs(%e : tensor<3x7x65xbf16>) -> tensor<3x7x65xbf16>
  return %y : tensor<3x7x65xbf16>
}

// An attention-like chain that does not fuse (the softmax normalises over
// the queries): the batch_matmuls and the softmax are compiled one by one.
func.func @softmax_over_queries(%q: tensor<4x16x8xf32>, %k: tensor<4x24x8xf32>, %v: tensor<4x16x8xf32>) -> tensor<4x24x8xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x8x24xf32>
  %kt = linalg.transpose ins(%k : tensor<4x24x8xf32>) outs(%et : tensor<4x8x24xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul ins(%q, %kt : tensor<4x16x8xf32>, tensor<4x8x24xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e2 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(1) ins(%s : tensor<4x16x24xf32>) outs(%e2 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %et2 = tensor.empty() : tensor<4x24x16xf32>
  %pt = linalg.transpose ins(%p : tensor<4x16x24xf32>) outs(%et2 : tensor<4x24x16xf32>) permutation = [0, 2, 1]
  %e3 = tensor.empty() : tensor<4x24x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x24x8xf32>) -> tensor<4x24x8xf32>
  %o = linalg.batch_matmul ins(%pt, %v : tensor<4x24x16xf32>, tensor<4x16x8xf32>) outs(%f3 : tensor<4x24x8xf32>) -> tensor<4x24x8xf32>
  return %o : tensor<4x24x8xf32>
}
