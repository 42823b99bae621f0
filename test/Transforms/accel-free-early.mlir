// accel-free-early moves each memref.dealloc up to just after the last use
// of its buffer (or of a memref derived from it) in its block; a buffer
// that may be used where the pass cannot follow keeps its dealloc.
// RUN: accel-opt %s -split-input-file -allow-unregistered-dialect --accel-free-early | FileCheck %s

// Two temporaries one after the other: the first is freed before the
// second is made (its block can serve it).
// CHECK-LABEL: func @sequential
// CHECK: %[[A:.*]] = memref.alloc() : memref<1024xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<1024xf32>)
// CHECK: linalg.copy ins(%[[A]] : memref<1024xf32>) outs(%arg0 : memref<1024xf32>)
// CHECK-NEXT: memref.dealloc %[[A]] : memref<1024xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<1024xf32>
// CHECK: linalg.copy ins(%[[B]] : memref<1024xf32>) outs(%arg1 : memref<1024xf32>)
// CHECK-NEXT: memref.dealloc %[[B]] : memref<1024xf32>
// CHECK-NEXT: return
func.func @sequential(%o0: memref<1024xf32>, %o1: memref<1024xf32>, %x: f32) {
  %a = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<1024xf32>)
  linalg.copy ins(%a : memref<1024xf32>) outs(%o0 : memref<1024xf32>)
  %b = memref.alloc() : memref<1024xf32>
  linalg.fill ins(%x : f32) outs(%b : memref<1024xf32>)
  linalg.copy ins(%b : memref<1024xf32>) outs(%o1 : memref<1024xf32>)
  memref.dealloc %a : memref<1024xf32>
  memref.dealloc %b : memref<1024xf32>
  return
}

// -----

// A view's use and a use inside a loop count: after the loop.
// CHECK-LABEL: func @views_and_loops
// CHECK: %[[A:.*]] = memref.alloc() : memref<16x64xf32>
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: scf.for
// CHECK: memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]] : memref<16x64xf32>
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<64xf32>
func.func @views_and_loops(%o: memref<64xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %a = memref.alloc() : memref<16x64xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<16x64xf32>)
  %v = memref.subview %a[0, 0] [16, 1] [1, 1] : memref<16x64xf32> to memref<16xf32, strided<[64]>>
  scf.for %i = %c0 to %c16 step %c1 {
    %e = memref.load %v[%i] : memref<16xf32, strided<[64]>>
    memref.store %e, %o[%i] : memref<64xf32>
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%x : f32) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%o : memref<64xf32>)
  memref.dealloc %a : memref<16x64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A loop that carries the buffer: its result is the buffer too, used after.
// CHECK-LABEL: func @carried
// CHECK: %[[R:.*]] = scf.for
// CHECK: linalg.copy ins(%[[R]] : memref<8xf32>)
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<8xf32>
// CHECK-NEXT: "test.after"()
func.func @carried(%o: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<8xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %a) -> (memref<8xf32>) {
    linalg.fill ins(%x : f32) outs(%t : memref<8xf32>)
    scf.yield %t : memref<8xf32>
  }
  linalg.copy ins(%r : memref<8xf32>) outs(%o : memref<8xf32>)
  "test.after"() : () -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// Where the pass cannot follow the buffer, the dealloc stays: a call, an
// address taken, a use in another block.
// CHECK-LABEL: func @escapes
// CHECK: call @sink
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: "test.after"()
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func private @sink(memref<8xf32>)
func.func @escapes(%x: f32) {
  %a = memref.alloc() : memref<8xf32>
  call @sink(%a) : (memref<8xf32>) -> ()
  %b = memref.alloc() : memref<8xf32>
  %p = memref.extract_aligned_pointer_as_index %b : memref<8xf32> -> index
  "test.after"() : () -> ()
  memref.dealloc %a : memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  return
}

// -----

// CHECK-LABEL: func @other_block
// CHECK: cf.br ^bb1
// CHECK: ^bb1:
// CHECK: "test.use"(%{{.*}})
// CHECK: memref.dealloc
func.func @other_block(%x: f32) {
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%x : f32) outs(%a : memref<8xf32>)
  cf.br ^bb1
^bb1:
  "test.use"(%a) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// Unused: freed right after it is made.
// CHECK-LABEL: func @unused
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: "test.after"()
func.func @unused() {
  %a = memref.alloc() : memref<8xf32>
  "test.after"() : () -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// Escapes through a loop's block argument, a memref of memrefs and an
// asynchronous region; a dealloc of a cast (not of an allocation): each
// dealloc stays.
// CHECK-LABEL: func @iter_arg_to_call
// CHECK: call @use_kept()
// CHECK-NEXT: memref.dealloc
func.func private @keep(memref<8xf32>)
func.func private @use_kept()
func.func @iter_arg_to_call() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<8xf32>
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%t = %a) -> memref<8xf32> {
    func.call @keep(%t) : (memref<8xf32>) -> ()
    scf.yield %t : memref<8xf32>
  }
  func.call @use_kept() : () -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// CHECK-LABEL: func @boxed
// CHECK: "test.use"
// CHECK-NEXT: memref.dealloc
func.func @boxed() {
  %a = memref.alloc() : memref<8xf32>
  %box = memref.alloca() : memref<memref<8xf32>>
  memref.store %a, %box[] : memref<memref<8xf32>>
  "test.between"() : () -> ()
  %b = memref.load %box[] : memref<memref<8xf32>>
  "test.use"(%b) : (memref<8xf32>) -> ()
  memref.dealloc %a : memref<8xf32>
  return
}

// CHECK-LABEL: func @asynchronous
// CHECK: async.await
// CHECK-NEXT: memref.dealloc
func.func @asynchronous() {
  %a = memref.alloc() : memref<8xf32>
  %tok = async.execute {
    "test.use"(%a) : (memref<8xf32>) -> ()
    async.yield
  }
  "test.between"() : () -> ()
  async.await %tok : !async.token
  memref.dealloc %a : memref<8xf32>
  return
}

// CHECK-LABEL: func @cast_dealloc
// CHECK: "test.use"
// CHECK-NEXT: memref.dealloc
func.func @cast_dealloc() {
  %a = memref.alloc() : memref<8xf32>
  %c = memref.cast %a : memref<8xf32> to memref<?xf32>
  "test.use"(%a) : (memref<8xf32>) -> ()
  memref.dealloc %c : memref<?xf32>
  return
}
