// RUN: accel-opt %s -split-input-file --accel-cpu-outline-parallel | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-cpu-outline-parallel="callee=my_pool" | FileCheck %s --check-prefix=CALLEE

// A 2-d loop: what the body reads from outside (two memrefs as their
// descriptors, a float, a dynamic trip count) goes into a stack slot in the
// entry block; constants are made again in the body; the body runs the
// linearised iterations [begin, end), the last dimension fastest; a nested
// loop stays in the body.
// CHECK-LABEL: func.func private @accel_parallel_for((!llvm.ptr, index, index) -> (), !llvm.ptr, index)
// CHECK-LABEL: func.func @scale(
// CHECK-SAME:    %[[A:.*]]: memref<?x64xf32>, %[[B:.*]]: memref<?x64xf32>, %[[S:.*]]: f32)
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, f32, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>)>
// CHECK:         %[[N:.*]] = memref.dim %[[A]]
// CHECK:         %[[ROWS:.*]] = arith.maxsi %[[N]], %{{.*}} : index
// CHECK:         %[[TOTAL:.*]] = arith.muli %[[ROWS]], %[[C32:.*]] : index
// CHECK:         %[[DA:.*]] = builtin.unrealized_conversion_cast %[[A]] : memref<?x64xf32> to !llvm.struct
// CHECK:         %[[F0:.*]] = llvm.getelementptr %[[SLOT]][0, 0]
// CHECK:         llvm.store %[[DA]], %[[F0]]
// CHECK:         %[[F1:.*]] = llvm.getelementptr %[[SLOT]][0, 1]
// CHECK:         llvm.store %[[S]], %[[F1]] : f32
// CHECK:         %[[DB:.*]] = builtin.unrealized_conversion_cast %[[B]]
// CHECK:         llvm.store %[[DB]]
// CHECK:         %[[FN:.*]] = constant @scale_parallel : (!llvm.ptr, index, index) -> ()
// CHECK:         call @accel_parallel_for(%[[FN]], %[[SLOT]], %[[TOTAL]])
// CHECK-NOT:     scf.parallel
// CHECK:         return
// CHECK-LABEL: func.func private @scale_parallel(
// CHECK-SAME:    %[[CTX:.*]]: !llvm.ptr, %[[BEGIN:.*]]: index, %[[END:.*]]: index)
// CHECK-SAME:    attributes {llvm.linkage = #llvm.linkage<internal>}
// CHECK:         %[[L0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct
// CHECK:         %[[MA:.*]] = builtin.unrealized_conversion_cast %[[L0]] {{.*}} to memref<?x64xf32>
// CHECK:         %[[LS:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[L2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct
// CHECK:         %[[MB:.*]] = builtin.unrealized_conversion_cast %[[L2]] {{.*}} to memref<?x64xf32>
// CHECK-DAG:     %[[K0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[K1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[K2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[K32:.*]] = arith.constant 32 : index
// CHECK:         scf.for %[[IT:.*]] = %[[BEGIN]] to %[[END]] step
// CHECK:           %[[J:.*]] = arith.remui %[[IT]], %[[K32]]
// CHECK:           %[[I:.*]] = arith.divui %[[IT]], %[[K32]]
// CHECK:           %[[JS:.*]] = arith.muli %[[J]], %[[K2]]
// CHECK:           %[[COL:.*]] = arith.addi %[[K1]], %[[JS]]
// CHECK:           %[[IS:.*]] = arith.muli %[[I]], %[[K1]]
// CHECK:           %[[ROW:.*]] = arith.addi %[[K0]], %[[IS]]
// CHECK:           %[[X:.*]] = memref.load %[[MA]][%[[ROW]], %[[COL]]]
// CHECK:           %[[Y:.*]] = arith.mulf %[[X]], %[[LS]]
// CHECK:           memref.store %[[Y]], %[[MB]][%[[ROW]], %[[COL]]]
// CHECK:           scf.parallel
// CHECK:         return
// CALLEE: func.func private @my_pool((!llvm.ptr, index, index) -> (), !llvm.ptr, index)
// CALLEE: call @my_pool(
func.func @scale(%a: memref<?x64xf32>, %b: memref<?x64xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %a, %c0 : memref<?x64xf32>
  scf.parallel (%i, %j) = (%c0, %c1) to (%n, %c64) step (%c1, %c2) {
    %x = memref.load %a[%i, %j] : memref<?x64xf32>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %b[%i, %j] : memref<?x64xf32>
    scf.parallel (%k) = (%c0) to (%c2) step (%c1) {
      memref.store %y, %b[%i, %k] : memref<?x64xf32>
    }
  }
  return
}

// -----

// Left as they are: a loop with a reduction, one of a single iteration,
// one inside a sequential loop of unknown trip count and one inside loops
// of 8^4 > 1024 iterations. A loop that reads nothing from outside gets a
// null context; loops in one function get a body each; dynamic bounds and
// steps go through the context; a loop inside sequential loops of 2 x 3
// iterations (a GEMM's K blocks) is outlined.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     accel_parallel_for
// CHECK:         scf.parallel {{.*}} init
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK:         scf.for
// CHECK-NEXT:      scf.parallel
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK-NEXT:        scf.for
// CHECK-NEXT:          scf.for
// CHECK-NEXT:            scf.parallel
// CHECK-NOT:     accel_parallel_for
// CHECK:         return
// CHECK-LABEL: func.func @several(
// CHECK-SAME:    %[[LB:.*]]: index, %[[UB:.*]]: index, %[[ST:.*]]: index
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(i64, i64)>
// CHECK:         %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK:         %[[F0:.*]] = constant @several_parallel : (!llvm.ptr, index, index) -> ()
// CHECK:         call @accel_parallel_for(%[[F0]], %[[NULL]], %{{.*}})
// CHECK:         %[[SPAN:.*]] = arith.subi %[[UB]], %[[LB]]
// CHECK:         %[[CD:.*]] = arith.ceildivsi %[[SPAN]], %[[ST]]
// CHECK:         %[[CNT:.*]] = arith.maxsi %[[CD]]
// CHECK:         arith.index_cast %[[LB]] : index to i64
// CHECK:         arith.index_cast %[[ST]] : index to i64
// CHECK:         %[[F1:.*]] = constant @several_parallel_0
// CHECK:         call @accel_parallel_for(%[[F1]], %[[SLOT]], %[[CNT]])
// CHECK:         scf.for
// CHECK-NEXT:      scf.for
// CHECK:             %[[F2:.*]] = func.constant @several_parallel_1
// CHECK:             func.call @accel_parallel_for(%[[F2]], %{{.*}}, %{{.*}})
// CHECK-LABEL: func.func private @several_parallel_1(
// CHECK-LABEL: func.func private @several_parallel_0(
// CHECK:         %[[LB2:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         %[[ST2:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         scf.for %[[IT:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[M:.*]] = arith.muli %[[IT]], %[[ST2]]
// CHECK:           %[[IV:.*]] = arith.addi %[[LB2]], %[[M]]
// CHECK:           memref.store %{{.*}}, %{{.*}}[%[[IV]]]
// CHECK-LABEL: func.func private @several_parallel(
// CHECK:         memref.alloca
func.func @kept(%m: memref<8xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.parallel (%i) = (%c0) to (%c8) step (%c1) init (%zero) -> f32 {
    %x = memref.load %m[%i] : memref<8xf32>
    scf.reduce(%x : f32) {
    ^bb0(%l: f32, %r: f32):
      %s = arith.addf %l, %r : f32
      scf.reduce.return %s : f32
    }
  }
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    memref.store %sum, %m[%i] : memref<8xf32>
  }
  %n = arith.fptosi %sum : f32 to i64
  %rows = arith.index_cast %n : i64 to index
  scf.for %r = %c0 to %rows step %c1 {
    scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
      memref.store %sum, %m[%i] : memref<8xf32>
    }
  }
  scf.for %r = %c0 to %c8 step %c1 {
    scf.for %s = %c0 to %c8 step %c1 {
      scf.for %t = %c0 to %c8 step %c1 {
        scf.for %u = %c0 to %c8 step %c1 {
          scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
            memref.store %sum, %m[%i] : memref<8xf32>
          }
        }
      }
    }
  }
  return %sum : f32
}
func.func @several(%lb: index, %ub: index, %st: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %t = memref.alloca() : memref<4xf32>
    memref.store %f, %t[%c0] : memref<4xf32>
  }
  scf.parallel (%i) = (%lb) to (%ub) step (%st) {
    %t = memref.alloca() : memref<64xf32>
    memref.store %f, %t[%i] : memref<64xf32>
  }
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  scf.for %k = %c0 to %c2 step %c1 {
    scf.for %l = %c0 to %c3 step %c1 {
      scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
        %t = memref.alloca() : memref<16xf32>
        memref.store %f, %t[%i] : memref<16xf32>
      }
    }
  }
  return
}

// -----

// A captured vector (the slot takes LLVM's preferred alignment for the
// struct: no 8-byte alignment under a 64-byte vector), and a 2-d loop whose
// inner trip count is dynamic: it goes through the context and
// delinearises the iteration.
// CHECK-LABEL: func.func @vec(
// CHECK:         %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(vector<16xf32>, struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>, i64)> : (i64) -> !llvm.ptr
// CHECK:         llvm.store %{{.*}}, %{{.*}} : vector<16xf32>, !llvm.ptr
// CHECK-LABEL: func.func private @vec_parallel(
// CHECK:         %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<16xf32>
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK:         scf.for %[[IT:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[J:.*]] = arith.remui %[[IT]], %[[N]]
// CHECK:           %[[I:.*]] = arith.divui %[[IT]], %[[N]]
// CHECK:           vector.store %[[V]]
func.func @vec(%m: memref<?x?xf32>, %v: vector<16xf32>, %cols: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %cols) step (%c1, %c1) {
    vector.store %v, %m[%i, %j] : memref<?x?xf32>, vector<16xf32>
  }
  return
}
