// A vector.print left in a kernel lowers to calls of printF32 and
// printNewline, which live in libmlir_c_runner_utils, not in the C library.
func.func @debug_print(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<4xf32>
  vector.print %x : f32
  return
}
