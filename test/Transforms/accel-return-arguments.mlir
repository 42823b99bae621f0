// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-return-arguments))" | FileCheck %s

// A returned out-argument (or a view of one) is returned as is.
// CHECK-LABEL: func @returns_argument
// CHECK-SAME: (%[[A:.+]]: memref<4x8xf32>, %[[B:.+]]: memref<4x8xf32>)
// CHECK-NOT: bufferization.clone
// CHECK: %[[V:.+]] = memref.subview %[[B]]
// CHECK: return %[[A]], %[[V]]
func.func @returns_argument(%a: memref<4x8xf32>, %b: memref<4x8xf32>)
    -> (memref<4x8xf32>, memref<2x8xf32, strided<[8, 1]>>) {
  %v = memref.subview %b[0, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1]>>
  %0 = bufferization.clone %a : memref<4x8xf32> to memref<4x8xf32>
  %1 = bufferization.clone %v : memref<2x8xf32, strided<[8, 1]>> to memref<2x8xf32, strided<[8, 1]>>
  return %0, %1 : memref<4x8xf32>, memref<2x8xf32, strided<[8, 1]>>
}

// -----

// Clones of buffers the function made, or with other uses, stay.
// CHECK-LABEL: func @keeps_other_clones
// CHECK: %[[M:.+]] = memref.alloc
// CHECK: %[[C0:.+]] = bufferization.clone %[[M]]
// CHECK: %[[C1:.+]] = bufferization.clone %arg0
// CHECK: memref.copy %[[C1]]
// CHECK: return %[[C0]], %[[C1]]
func.func @keeps_other_clones(%a: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %m = memref.alloc() : memref<4xf32>
  %0 = bufferization.clone %m : memref<4xf32> to memref<4xf32>
  %1 = bufferization.clone %a : memref<4xf32> to memref<4xf32>
  memref.copy %1, %m : memref<4xf32> to memref<4xf32>
  memref.dealloc %m : memref<4xf32>
  return %0, %1 : memref<4xf32>, memref<4xf32>
}
