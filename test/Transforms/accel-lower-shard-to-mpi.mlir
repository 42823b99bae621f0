// accel-lower-shard-to-mpi: upstream's convert-shard-to-mpi, the world
// communicator for collectives over every grid axis, no grid symbols left,
// and MPICH named for the LLVM lowering.
// RUN: accel-opt %s -split-input-file --accel-shard --accel-lower-shard-to-mpi | FileCheck %s
// The whole CPU pipeline reaches MPICH's MPI_Allreduce with no split.
// RUN: accel-opt %s -split-input-file --accel-cpu-pipeline | FileCheck %s --check-prefix=LLVM

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-NOT: shard.grid
// CHECK-LABEL: func.func @row_parallel(
// CHECK-NOT: mpi.comm_split
// CHECK: %[[W:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NEXT: %[[BUF:.*]] = memref.collapse_shape
// CHECK-NEXT: mpi.allreduce(%[[BUF]], %[[BUF]], MPI_SUM, %[[W]]) : memref<128xf32>, memref<128xf32>
// LLVM-LABEL: llvm.func @row_parallel(
// LLVM-NOT: MPI_Comm_split
// LLVM: llvm.call @MPI_Allreduce(
// LLVM-NOT: MPI_Comm_split
// LLVM: llvm.return
shard.grid @grid(shape = 2)
func.func @row_parallel(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<32x16xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = accel.matmul ins(%x, %wa : tensor<8x32xf32>, tensor<32x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %r : tensor<8x16xf32>
  return %ya : tensor<8x16xf32>
}

// -----

// On a 2 x 2 grid a sum over axis 1 only is a sum within each row of the
// grid: the split (color = the row) stays.
// CHECK-LABEL: func.func @two_axes(
// CHECK: %[[SPLIT:.*]] = mpi.comm_split(
// CHECK: mpi.allreduce({{.*}}, MPI_SUM, %[[SPLIT]])
// The split runs once per process (accel-cache-mpi-comms): a global holds
// the communicator, MPICH's MPI_COMM_NULL (0x04000000) until the first call.
// LLVM-LABEL: llvm.func @two_axes(
// LLVM-DAG: %[[NULL:.*]] = llvm.mlir.constant(67108864 : i32) : i32
// LLVM-DAG: %[[G:.*]] = llvm.mlir.addressof @__accel_mpi_comm_0 : !llvm.ptr
// LLVM: %[[CACHED:.*]] = llvm.load %[[G]] : !llvm.ptr -> i32
// LLVM: %[[FRESH:.*]] = llvm.icmp "eq" %[[CACHED]], %[[NULL]] : i32
// LLVM: llvm.cond_br %[[FRESH]], ^[[SPLIT:.*]], ^[[REUSE:bb[0-9]+]]
// LLVM: ^[[SPLIT]]:
// LLVM-NEXT: llvm.call @MPI_Comm_split(%{{.*}}, %{{.*}}, %{{.*}}, %[[OUT:.*]]) :
// LLVM-NEXT: %[[MADE:.*]] = llvm.load %[[OUT]] : !llvm.ptr -> i32
// LLVM-NEXT: llvm.store %[[MADE]], %[[G]] : i32, !llvm.ptr
// LLVM: ^[[REUSE]]:
// LLVM-NEXT: llvm.store %[[CACHED]], %[[OUT]] : i32, !llvm.ptr
// LLVM: llvm.call @MPI_Allreduce(
// LLVM: llvm.mlir.global internal @__accel_mpi_comm_0(67108864 : i32)
shard.grid @grid(shape = 2x2)
func.func @two_axes(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %xs = shard.sharding @grid split_axes = [[0], [1]] : !shard.sharding
  %xa = shard.shard %x to %xs annotate_for_users : tensor<8x32xf32>
  %e = tensor.empty() : tensor<8x16xf32>
  %y = accel.matmul ins(%xa, %w : tensor<8x32xf32>, tensor<32x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %r = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %ya = shard.shard %y to %r : tensor<8x16xf32>
  return %ya : tensor<8x16xf32>
}

// -----

// Without a partitioned function nothing changes.
// CHECK-NOT: dlti.map
// CHECK-LABEL: func.func @single(
// CHECK-NOT: mpi.
// LLVM-LABEL: llvm.func @single(
// LLVM-NOT: MPI_
func.func @single(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %y = accel.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

