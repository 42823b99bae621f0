// RUN: accel-opt %s --accel-cpu-transpose-kernels | FileCheck %s
// RUN: accel-opt %s --accel-cpu-transpose-kernels=threads=2 | FileCheck %s --check-prefix=PAR
// accel-cpu-transpose-kernels: a linalg.transpose swapping the two
// innermost dimensions of 8/16/32-bit buffers becomes 64-byte-square
// blocks (16 x 16 f32, 32 x 32 bf16, 64 x 64 i8) transposed in registers:
// per 16 source rows a 16 x 16 transpose of 32-bit words lowered to
// shuffles (upstream's Shuffle16x16: unpacks, then lane permutes), each
// destination row gathered from them by shuffles and stored as 64 bytes,
// the next-but-one block's source lines prefetched; element-by-element
// loops for the rows and columns past the last whole block; non-temporal
// stores from 4 MiB of destination. Other permutations and element types
// stay linalg.transpose.

// CHECK-LABEL: func.func @f32
// CHECK-NOT: linalg.transpose
// CHECK: memref.prefetch %arg0
// CHECK-COUNT-16: vector.load %arg0[{{.*}}] : memref<40x20xf32>, vector<16xf32>
// CHECK: vector.shuffle {{.*}} [0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29] : vector<16xi32>, vector<16xi32>
// CHECK-NOT: vector.transpose
// CHECK-COUNT-16: vector.store {{.*}}, %arg1[{{.*}}] : memref<20x40xf32>, vector<16xf32>
// The columns past the block (16..19) for rows 0..31, then rows 32..39.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store {{.*}}, %arg1
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %arg0
// CHECK: memref.store {{.*}}, %arg1
func.func @f32(%a: memref<40x20xf32>, %b: memref<20x40xf32>) {
  linalg.transpose ins(%a : memref<40x20xf32>) outs(%b : memref<20x40xf32>) permutation = [1, 0]
  return
}

// Two transposes of 16 rows of words; each destination row of 32 bf16 is
// lanes q, q + 2, .. of a transposed row of each (even rows q = 0, odd
// q = 1).
// CHECK-LABEL: func.func @bf16_dynamic
// CHECK-COUNT-32: vector.load %arg0[{{.*}}] : memref<?x?xbf16>, vector<32xbf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48, 50, 52, 54, 56, 58, 60, 62] : vector<32xbf16>, vector<32xbf16>
// CHECK: vector.store {{.*}}, %arg1[{{.*}}] : memref<?x?xbf16>, vector<32xbf16>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39, 41, 43, 45, 47, 49, 51, 53, 55, 57, 59, 61, 63] : vector<32xbf16>, vector<32xbf16>
// CHECK-NOT: nontemporal
// CHECK-LABEL: func.func @i8_batched
func.func @bf16_dynamic(%a: memref<?x?xbf16>, %b: memref<?x?xbf16>) {
  linalg.transpose ins(%a : memref<?x?xbf16>) outs(%b : memref<?x?xbf16>) permutation = [1, 0]
  return
}

// The batch dimension a loop; four transposes of words, a destination row
// from two pairs of them.
// CHECK: memref.dim %arg0, %c0
// CHECK: scf.for %[[B:.*]] =
// CHECK-COUNT-64: vector.load %arg0[%[[B]], {{.*}}] : memref<2x64x128xi8>, vector<64xi8>
// CHECK: vector.shuffle {{.*}} : vector<64xi8>, vector<64xi8>
// CHECK: vector.shuffle {{.*}} : vector<64xi8>, vector<64xi8>
// CHECK: vector.shuffle {{.*}} : vector<32xi8>, vector<32xi8>
// CHECK: vector.store {{.*}}, %arg1[%[[B]], {{.*}}] : memref<2x128x64xi8>, vector<64xi8>
func.func @i8_batched(%a: memref<2x64x128xi8>, %b: memref<2x128x64xi8>) {
  linalg.transpose ins(%a : memref<2x64x128xi8>) outs(%b : memref<2x128x64xi8>) permutation = [0, 2, 1]
  return
}

// 4 MiB of destination: non-temporal stores; into an allocation aligned to
// 64 bytes with rows a multiple of 64 bytes, 64-byte aligned ones.
// CHECK-LABEL: func.func @large
// CHECK: vector.store {{.*}} {nontemporal = true} : memref<1024x2048xbf16>, vector<32xbf16>
// CHECK-LABEL: func.func @large_allocated
// CHECK: vector.store {{.*}} {alignment = 64 : i64, nontemporal = true} : memref<1024x2048xbf16>, vector<32xbf16>
func.func @large(%a: memref<2048x1024xbf16>, %b: memref<1024x2048xbf16>) {
  linalg.transpose ins(%a : memref<2048x1024xbf16>) outs(%b : memref<1024x2048xbf16>) permutation = [1, 0]
  return
}

func.func @large_allocated(%a: memref<2048x1024xbf16>) -> memref<1024x2048xbf16> {
  %b = memref.alloc() {alignment = 64 : i64} : memref<1024x2048xbf16>
  linalg.transpose ins(%a : memref<2048x1024xbf16>) outs(%b : memref<1024x2048xbf16>) permutation = [1, 0]
  return %b : memref<1024x2048xbf16>
}

// CHECK-LABEL: func.func @outer_swap
// CHECK: linalg.transpose
func.func @outer_swap(%a: memref<4x8x16xf32>, %b: memref<8x4x16xf32>) {
  linalg.transpose ins(%a : memref<4x8x16xf32>) outs(%b : memref<8x4x16xf32>) permutation = [1, 0, 2]
  return
}

// CHECK-LABEL: func.func @f64
// CHECK: linalg.transpose
// CHECK-LABEL: func.func @index
// CHECK: linalg.transpose
func.func @f64(%a: memref<16x16xf64>, %b: memref<16x16xf64>) {
  linalg.transpose ins(%a : memref<16x16xf64>) outs(%b : memref<16x16xf64>) permutation = [1, 0]
  return
}

func.func @index(%a: memref<40x20xindex>, %b: memref<20x40xindex>) {
  linalg.transpose ins(%a : memref<40x20xindex>) outs(%b : memref<20x40xindex>) permutation = [1, 0]
  return
}

// With threads: the tiles of destination rows in an scf.forall (not for a
// batched transpose).
// PAR-LABEL: func.func @f32
// PAR: scf.forall (%{{.*}}) in (2)
// PAR-LABEL: func.func @i8_batched
// PAR-NOT: scf.forall
// PAR-LABEL: func.func @large
