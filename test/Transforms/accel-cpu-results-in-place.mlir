// RUN: accel-opt %s -split-input-file --accel-cpu-results-in-place | FileCheck %s

// A result the function allocates (static shape, identity layout, never
// freed, returned once) becomes an argument appended to the function: the
// caller's buffer, written in place and returned. accel.result_args lists
// the results moved, in the order of the new arguments.
// CHECK-LABEL: func @allocated
// CHECK-SAME: (%[[A:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>) -> memref<4x8xf32>
// CHECK-SAME: accel.result_arg_alignments = array<i64: 1>, accel.result_args = array<i64: 0>
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
// CHECK: return %[[OUT]]
func.func @allocated(%a: memref<4x8xf32>) -> memref<4x8xf32> {
  %r = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  linalg.copy ins(%a : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  return %r : memref<4x8xf32>
}

// -----

// Accesses that assume an alignment of the buffer (a transpose's stores
// into a 64-byte aligned allocation), through a view: the wrapper passes the
// caller's buffer only when it has that alignment.
// CHECK-LABEL: func @aligned_stores
// CHECK-SAME: (%{{.+}}: vector<16xf32>, %[[OUT:.+]]: memref<4x16xf32>) -> memref<4x16xf32>
// CHECK-SAME: accel.result_arg_alignments = array<i64: 64>, accel.result_args = array<i64: 0>
// CHECK: memref.subview %[[OUT]]
// CHECK: vector.store {{.*}} {alignment = 64 : i64}
func.func @aligned_stores(%v: vector<16xf32>) -> memref<4x16xf32> {
  %c0 = arith.constant 0 : index
  %r = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
  %row = memref.subview %r[1, 0] [1, 16] [1, 1] : memref<4x16xf32> to memref<16xf32, strided<[1], offset: 16>>
  vector.store %v, %row[%c0] {alignment = 64 : i64} : memref<16xf32, strided<[1], offset: 16>>, vector<16xf32>
  return %r : memref<4x16xf32>
}

// -----

// Two results: an out-argument returned (already the caller's buffer) and
// an allocated one, which moves; a temporary freed in the function stays.
// CHECK-LABEL: func @mixed
// CHECK-SAME: (%[[A:.+]]: memref<4xf32>, %[[B:.+]]: memref<4xf32>, %[[OUT:.+]]: memref<2xi32>) -> (memref<4xf32>, memref<2xi32>)
// CHECK-SAME: accel.result_arg_alignments = array<i64: 1>, accel.result_args = array<i64: 1>
// CHECK: %[[T:.+]] = memref.alloc() : memref<16xf32>
// CHECK: memref.dealloc %[[T]]
// CHECK: return %[[B]], %[[OUT]]
func.func @mixed(%a: memref<4xf32>, %b: memref<4xf32>) -> (memref<4xf32>, memref<2xi32>) {
  %t = memref.alloc() : memref<16xf32>
  memref.dealloc %t : memref<16xf32>
  %r = memref.alloc() : memref<2xi32>
  return %b, %r : memref<4xf32>, memref<2xi32>
}

// -----

// Left as they are: a dynamic shape (the caller's size is only known to
// match after the call), a buffer returned twice (one caller buffer cannot
// be both), an allocation inside a region, a private function, and a
// function the module calls (its callers would need the new argument).
// CHECK-LABEL: func @dynamic
// CHECK-NOT: accel.result_args
// CHECK: memref.alloc(%{{.+}}) : memref<?xf32>
func.func @dynamic(%n: index) -> memref<?xf32> {
  %r = memref.alloc(%n) : memref<?xf32>
  return %r : memref<?xf32>
}
// CHECK-LABEL: func @twice
// CHECK-NOT: accel.result_args
// CHECK: memref.alloc() : memref<4xf32>
func.func @twice() -> (memref<4xf32>, memref<4xf32>) {
  %r = memref.alloc() : memref<4xf32>
  return %r, %r : memref<4xf32>, memref<4xf32>
}
// CHECK-LABEL: func @in_region
// CHECK-NOT: accel.result_args
// CHECK: scf.execute_region
// CHECK: memref.alloc() : memref<4xf32>
func.func @in_region() -> memref<4xf32> {
  %r = scf.execute_region -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    scf.yield %a : memref<4xf32>
  }
  return %r : memref<4xf32>
}
// CHECK-LABEL: func private @helper
// CHECK-NOT: accel.result_args
func.func private @helper() -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  return %r : memref<4xf32>
}
// CHECK-LABEL: func @called
// CHECK-SAME: () -> memref<4xf32> {
// CHECK-LABEL: func @caller
// CHECK-SAME: (%{{.+}}: memref<4xf32>) -> memref<4xf32>
// CHECK-SAME: accel.result_args = array<i64: 0>
func.func @called() -> memref<4xf32> {
  %r = memref.alloc() : memref<4xf32>
  return %r : memref<4xf32>
}
func.func @caller() -> memref<4xf32> {
  %u = call @called() : () -> memref<4xf32>
  %r = memref.alloc() : memref<4xf32>
  memref.copy %u, %r : memref<4xf32> to memref<4xf32>
  return %r : memref<4xf32>
}
