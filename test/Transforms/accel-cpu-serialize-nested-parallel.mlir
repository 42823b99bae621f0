// RUN: accel-opt %s --accel-cpu-serialize-nested-parallel | FileCheck %s

// A parallel loop inside a parallel loop runs sequentially inside its task;
// the outer one stays parallel.
// CHECK-LABEL: func.func @nested
// CHECK:       scf.parallel (%[[I:.*]]) = (%c0) to (%[[N:.*]]) step (%c1) {
// CHECK-NEXT:    scf.for %[[J:.*]] = %c0 to %c16 step %c1 {
// CHECK-NEXT:      scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK-NEXT:        memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK-NOT:   scf.parallel
func.func @nested(%m: memref<?x16x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.parallel (%j, %k) = (%c0, %c0) to (%c16, %c4) step (%c1, %c1) {
      memref.store %f, %m[%i, %j, %k] : memref<?x16x4xf32>
    }
  }
  return
}

// One iteration needs no threads; a loop of unknown or larger trip count
// keeps them.
// CHECK-LABEL: func.func @single
// CHECK-NOT:   scf.parallel (%{{.*}}) = (%c3) to (%c4)
// CHECK:       scf.for %{{.*}} = %c3 to %c4 step %c1
// CHECK:       scf.parallel (%{{.*}}) = (%c0) to (%c2) step (%c1)
// CHECK:       scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step (%c1)
func.func @single(%m: memref<8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c3) to (%c4) step (%c1) {
    memref.store %f, %m[%i] : memref<8xf32>
  }
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    memref.store %f, %m[%i] : memref<8xf32>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %f, %m[%i] : memref<8xf32>
  }
  return
}
