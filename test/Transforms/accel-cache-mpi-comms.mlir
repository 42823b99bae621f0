// accel-cache-mpi-comms: each MPI_Comm_split call site (MPICH's i32
// communicator) splits once per process and reuses the result afterwards.
// RUN: accel-opt %s -split-input-file --accel-cache-mpi-comms | FileCheck %s

// CHECK-LABEL: llvm.func @two_sites(
// CHECK-SAME: %[[COLOR:.*]]: i32, %[[KEY:.*]]: i32, %[[OUT:.*]]: !llvm.ptr)
// CHECK: %[[G0:.*]] = llvm.mlir.addressof @__accel_mpi_comm_0
// CHECK: %[[C0:.*]] = llvm.load %[[G0]] : !llvm.ptr -> i32
// CHECK: %[[NULL:.*]] = llvm.mlir.constant(67108864 : i32) : i32
// CHECK: %[[FRESH:.*]] = llvm.icmp "eq" %[[C0]], %[[NULL]] : i32
// CHECK: llvm.cond_br %[[FRESH]], ^[[SPLIT:bb[0-9]+]], ^[[REUSE:bb[0-9]+]]
// CHECK: ^[[SPLIT]]:
// CHECK-NEXT: %[[RV:.*]] = llvm.call @MPI_Comm_split(%{{.*}}, %[[COLOR]], %[[KEY]], %[[OUT]])
// CHECK-NEXT: %[[NEW:.*]] = llvm.load %[[OUT]] : !llvm.ptr -> i32
// CHECK-NEXT: llvm.store %[[NEW]], %[[G0]] : i32, !llvm.ptr
// CHECK-NEXT: llvm.br ^[[JOIN:bb[0-9]+]](%[[RV]] : i32)
// CHECK: ^[[REUSE]]:
// CHECK-NEXT: llvm.store %[[C0]], %[[OUT]] : i32, !llvm.ptr
// CHECK-NEXT: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.br ^[[JOIN]](%[[ZERO]] : i32)
// CHECK: ^[[JOIN]](%[[R:.*]]: i32):
// The second site has a global of its own; the first call's status flows on.
// CHECK: llvm.mlir.addressof @__accel_mpi_comm_1
// CHECK: llvm.call @MPI_Comm_split(
// CHECK: llvm.return %[[R]] : i32
// CHECK: llvm.mlir.global internal @__accel_mpi_comm_0(67108864 : i32)
// CHECK: llvm.mlir.global internal @__accel_mpi_comm_1(67108864 : i32)
llvm.func @MPI_Comm_split(i32, i32, i32, !llvm.ptr) -> i32
llvm.func @two_sites(%color: i32, %key: i32, %out: !llvm.ptr) -> i32 {
  %world = llvm.mlir.constant(1140850688 : i32) : i32
  %r = llvm.call @MPI_Comm_split(%world, %color, %key, %out) : (i32, i32, i32, !llvm.ptr) -> i32
  %r2 = llvm.call @MPI_Comm_split(%world, %key, %color, %out) : (i32, i32, i32, !llvm.ptr) -> i32
  llvm.return %r : i32
}

// -----

// Another ABI's handle (a pointer, as OpenMPI's) is left as it is.
// CHECK-LABEL: llvm.func @pointer_handle(
// CHECK-NEXT: llvm.mlir.constant
// CHECK-NEXT: llvm.call @MPI_Comm_split(
// CHECK-NEXT: llvm.return
// CHECK-NOT: __accel_mpi_comm
llvm.func @MPI_Comm_split(!llvm.ptr, i32, i32, !llvm.ptr) -> i32
llvm.func @pointer_handle(%comm: !llvm.ptr, %out: !llvm.ptr) -> i32 {
  %c = llvm.mlir.constant(0 : i32) : i32
  %r = llvm.call @MPI_Comm_split(%comm, %c, %c, %out) : (!llvm.ptr, i32, i32, !llvm.ptr) -> i32
  llvm.return %r : i32
}
