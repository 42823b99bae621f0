// accel-cpu-row-dot-kernels: an f32 contraction whose B is a transpose of a
// weight W [N, K] becomes dot products along W's rows; the transpose and
// its copy go.
// RUN: accel-opt %s -split-input-file --accel-cpu-row-dot-kernels --canonicalize | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-cpu-row-dot-kernels=threads=2 --canonicalize | FileCheck %s --check-prefix=THREADS
// RUN: accel-opt %s -split-input-file --accel-cpu-row-dot-kernels="features=avx2,fma" --canonicalize | FileCheck %s --check-prefix=AVX2

// 2 rows of A: the 2 x 8 tile (AVX-512 features unknown). W rows 0-7 in
// one tile, 8 and 9 one by one; K 40 = two steps of 16 in the loop (the
// next tile's W rows prefetched, clamped to the last row), then one masked
// step of 8; the 16 accumulators summed across lanes and added to the
// fill's value; no fill, no transpose, no copy, no matmul left.
// CHECK-LABEL: func @decode
// CHECK-NOT: linalg.
// CHECK-NOT: memref.alloc
// CHECK: scf.for %[[K:.*]] = %c0 to %c32 step %c16 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: memref.prefetch %arg1[%c8, %[[K]]], read
// CHECK: memref.prefetch %arg1[%c9, %[[K]]], read
// CHECK: %[[A0:.*]] = vector.load %arg0[%c0, %[[K]]] : memref<2x40xf32>, vector<16xf32>
// CHECK: %[[A1:.*]] = vector.load %arg0[%c1, %[[K]]] : memref<2x40xf32>, vector<16xf32>
// CHECK: %[[W0:.*]] = vector.load %arg1[%c0, %[[K]]] : memref<10x40xf32>, vector<16xf32>
// CHECK: vector.fma %[[A0]], %[[W0]], %{{.*}} : vector<16xf32>
// CHECK: vector.fma %[[A1]], %[[W0]], %{{.*}} : vector<16xf32>
// CHECK: %[[W7:.*]] = vector.load %arg1[%c7, %[[K]]] : memref<10x40xf32>, vector<16xf32>
// CHECK: vector.fma %[[A0]], %[[W7]]
// CHECK: vector.fma %[[A1]], %[[W7]]
// CHECK-NEXT: scf.yield
// CHECK: %[[MASK:.*]] = vector.constant_mask [8] : vector<16xi1>
// CHECK: vector.maskedload %arg0[%c0, %c32], %[[MASK]], %{{.*}} : memref<2x40xf32>
// CHECK: vector.maskedload %arg1[%c7, %c32], %[[MASK]]
// CHECK: %[[S:.*]] = vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: %[[V:.*]] = arith.addf %[[S]], %cst{{.*}} : f32
// CHECK: memref.store %[[V]], %arg2[%c0, %c0] : memref<2x10xf32>
// CHECK: scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[N:.*]] = arith.addi %[[J]], %c8 : index
// CHECK: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %arg1[%[[N]], %{{.*}}] : memref<10x40xf32>, vector<16xf32>
// CHECK: memref.store %{{.*}}, %arg2[%c1, %[[N]]] : memref<2x10xf32>
// CHECK-NOT: linalg.
// THREADS-LABEL: func @decode
// W rows 0-7 are one tile: no forall for a single task.
// THREADS-NOT: scf.forall
// AVX2-LABEL: func @decode
// AVX2: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
func.func @decode(%a: memref<2x40xf32>, %w: memref<10x40xf32>, %c: memref<2x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() {alignment = 64 : i64} : memref<40x10xf32>
  linalg.transpose ins(%w : memref<10x40xf32>) outs(%t : memref<40x10xf32>) permutation = [1, 0]
  linalg.fill ins(%zero : f32) outs(%c : memref<2x10xf32>)
  linalg.matmul ins(%a, %t : memref<2x40xf32>, memref<40x10xf32>) outs(%c : memref<2x10xf32>)
  return
}

// -----

// 5 rows (4 x 4 and a row), 12 W rows (3 tiles): with 2 threads the tiles
// of W rows are shared by 2 tasks of an scf.forall (2 tiles and 1). No fill: C is read and added to.
// CHECK-LABEL: func @accumulate
// CHECK-NOT: linalg.
// CHECK: scf.for %[[NB:.*]] = %c0 to %c3 step %c1 {
// CHECK: %[[S:.*]] = vector.reduction <add>
// CHECK: %[[C:.*]] = memref.load %arg2[%{{.*}}, %{{.*}}] : memref<5x12xf32>
// CHECK: %[[V:.*]] = arith.addf %[[C]], %[[S]] : f32
// CHECK: memref.store %[[V]], %arg2
// THREADS-LABEL: func @accumulate
// THREADS: scf.forall (%{{.*}}) in (2) {
func.func @accumulate(%a: memref<5x64xf32>, %w: memref<12x64xf32>, %c: memref<5x12xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<64x12xf32>
  linalg.transpose ins(%w : memref<12x64xf32>) outs(%t : memref<64x12xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %t : memref<5x64xf32>, memref<64x12xf32>) outs(%c : memref<5x12xf32>)
  return
}

// -----

// W written between the transpose and the product: the copy is B, the
// pass leaves both.
// CHECK-LABEL: func @written_between
// CHECK: linalg.transpose
// CHECK: memref.store
// CHECK: linalg.matmul
func.func @written_between(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  memref.store %x, %w[%c0, %c0] : memref<8x32xf32>
  linalg.matmul ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}

// -----

// Another kernel's config (cpu-fma), B not a transpose, 129 rows without a
// config, or bf16: not this pass's.
// CHECK-LABEL: func @not_row_dot
// CHECK-COUNT-4: linalg.transpose
// CHECK: linalg.matmul {{.*}}cpu-fma
// CHECK: linalg.matmul ins(%arg0, %arg1
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @not_row_dot(%a: memref<2x32xf32>, %b: memref<32x8xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>,
                       %a129: memref<129x32xf32>, %c129: memref<129x8xf32>,
                       %ah: memref<2x32xbf16>, %wh: memref<8x32xbf16>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  %t2 = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t2 : memref<32x8xf32>) permutation = [1, 0]
  %t3 = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t3 : memref<32x8xf32>) permutation = [1, 0]
  %th = memref.alloc() {alignment = 64 : i64} : memref<32x8xbf16>
  linalg.transpose ins(%wh : memref<8x32xbf16>) outs(%th : memref<32x8xbf16>) permutation = [1, 0]
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [0, 0, 0], mma = [6, 64, 1]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  linalg.matmul ins(%a, %b : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  linalg.matmul ins(%a129, %t2 : memref<129x32xf32>, memref<32x8xf32>) outs(%c129 : memref<129x8xf32>)
  linalg.matmul ins(%ah, %th : memref<2x32xbf16>, memref<32x8xbf16>) outs(%c : memref<2x8xf32>)
  return
}
