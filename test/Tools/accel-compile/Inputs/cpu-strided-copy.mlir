// A copy out of a strided view: accel-cpu-lower-copies makes it loops, so
// the library calls no memrefCopy (libmlir_c_runner_utils).
func.func @copy_view(%a: memref<8x8xf32>, %b: memref<4x4xf32>) {
  %v = memref.subview %a[0, 0] [4, 4] [2, 2] : memref<8x8xf32> to memref<4x4xf32, strided<[16, 2]>>
  memref.copy %v, %b : memref<4x4xf32, strided<[16, 2]>> to memref<4x4xf32>
  return
}
