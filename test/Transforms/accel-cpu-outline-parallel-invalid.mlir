// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-cpu-outline-parallel
// RUN: not accel-opt %s --accel-cpu-outline-parallel="callee=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: accel-cpu-outline-parallel: the callee name is empty

// The callee's name taken by a function of another type.
// expected-error @+1 {{accel-cpu-outline-parallel: 'accel_parallel_for' is the parallel-for outlined loops call, so it must be a func.func of type '((!llvm.ptr, index, index) -> (), !llvm.ptr, index) -> ()'}}
func.func private @accel_parallel_for(index)
func.func @f(%m: memref<8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %x, %m[%i] : memref<8xf32>
  }
  return
}
