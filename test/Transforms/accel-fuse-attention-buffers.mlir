// RUN: accel-opt %s --accel-fuse-attention | FileCheck %s
// RUN: accel-opt %s --accel-cpu-pipeline | FileCheck %s --check-prefix=CPU

// Matmuls on buffers have no result: accel-fuse-attention (which the CPU
// pipeline runs) leaves them alone. It used to read their missing result
// and crash (docs/bad-input-catalogue.md, row 10).

// CHECK-LABEL: func.func @matmul_on_buffers
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<8x16xf32>) outs(%{{.*}} : memref<4x16xf32>)
// CHECK-LABEL: func.func @batch_matmul_on_buffers
// CHECK: linalg.batch_matmul
// CHECK-LABEL: func.func @generic_matmul_on_buffers
// CHECK: linalg.generic
// CPU: llvm.func @matmul_on_buffers
// CPU: llvm.func @batch_matmul_on_buffers
// CPU: llvm.func @generic_matmul_on_buffers

func.func @matmul_on_buffers(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

func.func @batch_matmul_on_buffers(%a: memref<2x4x8xf32>, %b: memref<2x8x16xf32>, %c: memref<2x4x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<2x4x8xf32>, memref<2x8x16xf32>) outs(%c : memref<2x4x16xf32>)
  return
}

func.func @generic_matmul_on_buffers(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  }
  return
}
