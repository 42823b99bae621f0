// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,64,32 register-tile=4,16,1}))" | FileCheck %s

// Cache tiles (N, K, M), register tiles (N, M, K) with the K loop carrying
// the C tile in registers (read before, written after), and the register
// tile lowered to one broadcast + FMA per row per k.
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: memref<64x64xf32>, %[[B:.+]]: memref<64x64xf32>, %[[C:.+]]: memref<64x64xf32>)
// CHECK: scf.for %[[K0:[^ ]+]] = %{{.+}} to %{{.+}} step %c32
// CHECK: scf.for %[[N:[^ ]+]] = %{{.+}} to %{{.+}} step %c16
// CHECK: scf.for %[[M:[^ ]+]] = %{{.+}} to %{{.+}} step %c4
// CHECK: %[[CT:.+]] = vector.transfer_read %[[C]][%[[M]], %[[N]]]{{.*}} : memref<64x64xf32>, vector<4x16xf32>
// CHECK: %[[ACC:.+]] = scf.for %{{.+}} = %{{.+}} to %c32 step %c1 iter_args(%[[IT:.+]] = %[[CT]]) -> (vector<4x16xf32>)
// CHECK: vector.fma %{{.+}}, %{{.+}}, %{{.+}} : vector<16xf32>
// CHECK-COUNT-3: vector.fma
// CHECK: scf.yield
// CHECK: vector.transfer_write %[[ACC]], %[[C]][%[[M]], %[[N]]]
func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// 10 rows with mr = 4: peeling leaves full 4-row tiles and a static 2-row
// remainder, both vectorized; nothing stays scalar.
// CHECK-LABEL: func @remainder
// CHECK-NOT: linalg.
// CHECK: vector<4x16xf32>
// CHECK: vector<2x16xf32>
// CHECK-NOT: linalg.
func.func @remainder(%a: memref<10x8xf32>, %b: memref<8x16xf32>, %c: memref<10x16xf32>) {
  linalg.matmul ins(%a, %b : memref<10x8xf32>, memref<8x16xf32>) outs(%c : memref<10x16xf32>)
  return
}

// -----

// Unknown sizes: the tiles stay scalar linalg ops (they become loops).
// CHECK-LABEL: func @dynamic
// CHECK: linalg.matmul ins(%{{.+}} : memref<?x?xf32, strided<[?, 1], offset: ?>>
func.func @dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>) {
  linalg.matmul ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?xf32>)
  return
}

// -----

// Not a contraction: untouched.
// CHECK-LABEL: func @fill
// CHECK: linalg.fill
func.func @fill(%c: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<64x64xf32>)
  return
}

// -----

// A reshaped argument ([B*H, M, K] seen as [B, H, M, K], what
// accel-fuse-attention leaves for 3-D chains): the register tiles are still
// vectorized, and the A tiles, which have more dims than the reshape's
// source, are read through the view.
// CHECK-LABEL: func @expanded_lhs
// CHECK-SAME: (%[[A:.+]]: memref<4x10x8xf32>
// CHECK: %[[AX:.+]] = memref.expand_shape %[[A]]
// CHECK: vector.transfer_read %[[AX]]{{.*}} : memref<1x4x10x8xf32>, vector<1x1x4x1xf32>
// CHECK: vector.fma
// CHECK: vector.transfer_read %[[AX]]{{.*}} : memref<1x4x10x8xf32>, vector<1x1x2x1xf32>
// CHECK: vector.fma
// CHECK-NOT: linalg.
func.func @expanded_lhs(%a: memref<4x10x8xf32>, %b: memref<1x4x8x16xf32>, %c: memref<1x4x10x16xf32>) {
  %ax = memref.expand_shape %a [[0, 1], [2], [3]] output_shape [1, 4, 10, 8] : memref<4x10x8xf32> into memref<1x4x10x8xf32>
  linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%ax, %b : memref<1x4x10x8xf32>, memref<1x4x8x16xf32>) outs(%c : memref<1x4x10x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
