// RUN: accel-opt %s -split-input-file -mlir-print-local-scope --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=0,0,0 register-tile=4,32,1 pack-rhs=0 prefetch-c=0}))" | FileCheck %s
// RUN: accel-opt %s -split-input-file -mlir-print-local-scope --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=0,0,0 register-tile=4,32,1 pack-rhs=0 prefetch-c=0 prefetch-b=0}))" | FileCheck %s --check-prefix=OFF
// RUN: accel-opt %s -split-input-file -mlir-print-local-scope --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=0,0,0 register-tile=4,32,1 pack-rhs=0 prefetch-c=0 features=avx2,fma}))" | FileCheck %s --check-prefix=AVX2
// RUN: accel-opt %s -split-input-file -mlir-print-local-scope --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=0,0,256 register-tile=4,32,1 pack-rhs=0 prefetch-c=0}))" | FileCheck %s --check-prefix=KC256

// B's rows prefetched in the register tile's K loop (prefetch-b): the row
// 4 K steps ahead, clamped to B's last row, one prefetch per 64-byte line of
// the tile's nr = 32 columns, when the loop reads more of B than 2/3 of the
// L1D holds (features unknown: 32 KiB; with AVX2 the catalogue's
// x86-64-avx2 entry, L1D 32 KiB: 21.3 KiB).

// 1024 rows x 128 bytes: 128 KiB streamed past every M tile.
// CHECK-LABEL: func @rows_streamed
// CHECK-SAME: %[[B:[^:]+]]: memref<1024x32xf32>
// CHECK: scf.for %[[K:.+]] = %c0 to %c1024 step %c1 iter_args
// CHECK: %[[AHEAD:.+]] = affine.min affine_map<(d0)[s0] -> (d0 + 4, 1023)>(%[[K]])
// CHECK-NEXT: memref.prefetch %[[B]][%[[AHEAD]], %c0], read, locality<3>, data
// CHECK-NEXT: memref.prefetch %[[B]][%[[AHEAD]], %c16], read, locality<3>, data
// CHECK-NEXT: vector.transfer_read %[[B]][%[[K]], %c0]
// CHECK-NOT: memref.prefetch
// CHECK: return
// OFF-LABEL: func @rows_streamed
// OFF-NOT: memref.prefetch
func.func @rows_streamed(%a: memref<8x1024xf32>, %b: memref<1024x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x1024xf32>, memref<1024x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// 256 rows x 128 bytes = 32 KiB: stays in L1 for the next M tile, no
// prefetch; with AVX2's smaller L1D it is prefetched.
// CHECK-LABEL: func @rows_in_l1
// CHECK-NOT: memref.prefetch
// AVX2-LABEL: func @rows_in_l1
// AVX2: scf.for
// AVX2: affine.min affine_map<(d0)[s0] -> (d0 + 4, 255)>
// AVX2-COUNT-2: memref.prefetch
// AVX2-NOT: memref.prefetch
func.func @rows_in_l1(%a: memref<8x256xf32>, %b: memref<256x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x256xf32>, memref<256x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// A K of unknown extent: prefetched, clamped to B's last row (its dim taken
// once, outside the K loop). In K blocks of 256 (KC256) the register tile's
// K loop runs to min(256, K - k): at most 32 KiB of B, no prefetch.
// CHECK-LABEL: func @dynamic_k
// AVX2-LABEL: func @dynamic_k
// CHECK-SAME: %[[B:[^:]+]]: memref<?x32xf32>
// CHECK: %[[ROWS:.+]] = memref.dim %[[B]], %c0
// CHECK-NEXT: scf.for %[[K:.+]] = %c0 to %{{.+}} step %c1 iter_args
// CHECK: %[[AHEAD:.+]] = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0 - 1)>(%[[K]])[%[[ROWS]]]
// CHECK-NEXT: memref.prefetch %[[B]][%[[AHEAD]], %c0]
// KC256-LABEL: func @dynamic_k
// KC256: affine.min affine_map<(d0)[s0] -> (-d0 + s0, 256)>
// KC256-NOT: memref.prefetch
func.func @dynamic_k(%a: memref<8x?xf32>, %b: memref<?x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x?xf32>, memref<?x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// N = 40: the full 32-column tile prefetches both lines of its row; the
// masked 8-column tail only its first (the lanes past it lie past B's
// columns).
// CHECK-LABEL: func @masked_tail
// CHECK-SAME: %[[B:[^:]+]]: memref<1024x40xf32>
// CHECK: memref.prefetch %[[B]][%{{.+}}, %c0]
// CHECK-NEXT: memref.prefetch %[[B]][%{{.+}}, %c16]
// CHECK-NEXT: vector.transfer_read %[[B]]
// CHECK: memref.prefetch %[[B]][%{{.+}}, %c32]
// CHECK-NEXT: vector.transfer_read %[[B]][%{{.+}}, %c32], %{{.+}}, %{{.+}} {in_bounds
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @masked_tail(%a: memref<8x1024xf32>, %b: memref<1024x40xf32>, %c: memref<8x40xf32>) {
  linalg.matmul ins(%a, %b : memref<8x1024xf32>, memref<1024x40xf32>) outs(%c : memref<8x40xf32>)
  return
}
