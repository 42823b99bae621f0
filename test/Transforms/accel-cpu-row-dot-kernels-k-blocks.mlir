// accel-cpu-row-dot-kernels with K in blocks (a config's tile [0, 0, Kc]);
// the 4 x 4 tile is AVX-512's (accel-cpu-row-dot-kernels-invalid.mlir: not
// AVX2's).
// RUN: accel-opt %s --accel-cpu-row-dot-kernels --canonicalize | FileCheck %s

// K in blocks of 32 (the config's tile [0, 0, 32]) with 5 rows of A (a
// 4 x 4 tile and a lone row) and 4 W rows: slots of accumulators (one per
// tile of rows) zeroed, then per block of K, up to the last whole 16, each
// tile loads its slot, runs over the block (the first tile prefetching the
// next W rows) and stores it back; then each slot's masked K tail (70 =
// 64 + 6) and sums into C.
// CHECK-LABEL: func @k_blocks
// CHECK: %[[SLOTS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x16x16xf32>
// CHECK: scf.for %[[S:.*]] = %c0 to %c2 step %c1 {
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%[[S]], %c0, %c0]
// CHECK: scf.for %[[KB:.*]] = %c0 to %c64 step %c32 {
// CHECK: %[[END:.*]] = arith.addi %[[KB]], %c32 : index
// CHECK: %[[HI:.*]] = arith.minui %[[END]], %c64 : index
// CHECK: %[[L0:.*]] = vector.load %[[SLOTS]][%c0, %c0, %c0]
// CHECK: scf.for %[[K:.*]] = %[[KB]] to %[[HI]] step %c16 iter_args(%{{.*}} = %[[L0]],
// CHECK: memref.prefetch %arg1
// CHECK: vector.load %arg0[%c3, %[[K]]]
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%c0, %c15, %c0]
// CHECK: vector.load %[[SLOTS]][%c1, %c0, %c0]
// CHECK: scf.for %[[K2:.*]] = %[[KB]] to %[[HI]] step %c16 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: memref.prefetch
// CHECK: vector.load %arg0[%c4, %[[K2]]]
// CHECK: vector.store %{{.*}}, %[[SLOTS]][%c1, %c3, %c0]
// CHECK: vector.constant_mask [6]
// CHECK: vector.reduction <add>
// CHECK: memref.store %{{.*}}, %arg2[%c4, %c3] : memref<5x4xf32>
// CHECK-NOT: linalg.
func.func @k_blocks(%a: memref<5x70xf32>, %w: memref<4x70xf32>, %c: memref<5x4xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<70x4xf32>
  linalg.transpose ins(%w : memref<4x70xf32>) outs(%t : memref<70x4xf32>) permutation = [1, 0]
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", tile = [0, 0, 32], mma = [4, 4, 16]>} ins(%a, %t : memref<5x70xf32>, memref<70x4xf32>) outs(%c : memref<5x4xf32>)
  return
}
