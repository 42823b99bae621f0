// RUN: accel-opt %s --accel-cpu-lower-copies | FileCheck %s

// A copy into a stride-2 view (an interleaved insert_slice) becomes a
// linalg.copy; a contiguous one stays a memref.copy (an llvm.memcpy).
// CHECK-LABEL: func @copies
// CHECK-SAME: (%[[SRC:.+]]: memref<4x32xf32>, %[[DST:.+]]: memref<4x64xf32>, %[[TMP:.+]]: memref<4x32xf32>)
// CHECK: %[[VIEW:.+]] = memref.subview %[[DST]][0, 1] [4, 32] [1, 2]
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x32xf32>) outs(%[[VIEW]] : memref<4x32xf32, strided<[64, 2], offset: 1>>)
// CHECK: memref.copy %[[SRC]], %[[TMP]] : memref<4x32xf32> to memref<4x32xf32>
// CHECK-NOT: memref.copy
func.func @copies(%src: memref<4x32xf32>, %dst: memref<4x64xf32>, %tmp: memref<4x32xf32>) {
  %view = memref.subview %dst[0, 1] [4, 32] [1, 2] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 2], offset: 1>>
  memref.copy %src, %view : memref<4x32xf32> to memref<4x32xf32, strided<[64, 2], offset: 1>>
  memref.copy %src, %tmp : memref<4x32xf32> to memref<4x32xf32>
  return
}

// A copy of the left half of rows (contiguous rows, a gap between them).
// CHECK-LABEL: func @half_rows
// CHECK: linalg.copy
// CHECK-NOT: memref.copy
func.func @half_rows(%src: memref<4x64xf32>, %dst: memref<4x32xf32>) {
  %view = memref.subview %src[0, 0] [4, 32] [1, 1] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 1]>>
  memref.copy %view, %dst : memref<4x32xf32, strided<[64, 1]>> to memref<4x32xf32>
  return
}
