// accel-cpu-amx-kernels packs B once before the loops when B is a slab of a
// buffer nothing in them writes and the GEMM runs more often than the
// buffer has slabs (FlashAttention's key and value tiles: before, every
// query block packed them again).
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8}),canonicalize)' | FileCheck %s

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Heads x query blocks (2) x key tiles (4) of 64 rows of V [2, 256, 32]:
// V is packed whole, [2 heads, 2 panels of 16 columns, 128 pairs of rows,
// 32], before the forall (one slab per head); each GEMM reads its 32 pairs
// of rows at j / 2, and packs no B of its own.
// CHECK-LABEL: func @tiles
// CHECK-SAME: %[[V:[a-z0-9]+]]: memref<2x256x32xbf16>
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x128x32xbf16>
// CHECK: scf.for %[[H:.+]] = %c0 to %c2 step %c1 {
// CHECK: memref.subview %[[V]][%[[H]], 0, 0] [1, 256, 32]
// CHECK: vector.interleave
// CHECK: scf.forall (%[[HEAD:.+]]) in (2) {
// CHECK: scf.for
// CHECK: scf.for %[[J:.+]] = %c0 to %c256 step %c64 {
// CHECK: %[[J2:.+]] = arith.divui %[[J]], %c2
// CHECK: %[[B:.+]] = memref.subview %[[P]][%[[HEAD]], 0, %[[J2]], 0] [1, 2, 32, 32]
// CHECK-NOT: vector.interleave
// CHECK: amx.tile_load %[[B]]
// CHECK-NOT: vector.interleave
// CHECK: return
func.func @tiles(%a: memref<2x64x64xbf16>, %v: memref<2x256x32xbf16>, %c: memref<2x64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  scf.forall (%h) in (2) {
    scf.for %q = %c0 to %c128 step %c64 {
      scf.for %j = %c0 to %c256 step %c64 {
        %av = memref.subview %a[%h, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
        %bv = memref.subview %v[%h, %j, 0] [1, 64, 32] [1, 1, 1] : memref<2x256x32xbf16> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
        %cv = memref.subview %c[%h, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
        linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%av, %bv : memref<64x64xbf16, strided<[64, 1], offset: ?>>, memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%cv : memref<64x32xf32, strided<[32, 1], offset: ?>>) {
        ^bb0(%x: bf16, %y: bf16, %acc: f32):
          %0 = arith.extf %x : bf16 to f32
          %1 = arith.extf %y : bf16 to f32
          %2 = arith.mulf %0, %1 : f32
          %3 = arith.addf %acc, %2 : f32
          linalg.yield %3 : f32
        }
      }
    }
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Not hoisted: V is written inside the loops (each key tile's B is packed
// where the GEMM is), and a tile of 48 rows (not whole 32-row steps, and not
// V's last rows) whose last step would read the next tile's rows.
// CHECK-LABEL: func @written
// CHECK-NOT: memref<2x2x128x32xbf16>
// CHECK: scf.forall
// CHECK: linalg.fill
// CHECK: vector.interleave
// CHECK: amx.tile_mulf
// CHECK-LABEL: func @ragged_tile
// CHECK-NOT: memref<2x2x128x32xbf16>
// CHECK: scf.forall
// CHECK: vector.interleave
// CHECK: amx.tile_mulf
func.func @written(%a: memref<2x64x64xbf16>, %v: memref<2x256x32xbf16>, %c: memref<2x64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : bf16
  scf.forall (%h) in (2) {
    scf.for %q = %c0 to %c128 step %c64 {
      scf.for %j = %c0 to %c256 step %c64 {
        %av = memref.subview %a[%h, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xbf16> to memref<64x64xbf16, strided<[64, 1], offset: ?>>
        %bv = memref.subview %v[%h, %j, 0] [1, 64, 32] [1, 1, 1] : memref<2x256x32xbf16> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
        %cv = memref.subview %c[%h, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
        linalg.fill ins(%one : bf16) outs(%bv : memref<64x32xbf16, strided<[32, 1], offset: ?>>)
        linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%av, %bv : memref<64x64xbf16, strided<[64, 1], offset: ?>>, memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%cv : memref<64x32xf32, strided<[32, 1], offset: ?>>) {
        ^bb0(%x: bf16, %y: bf16, %acc: f32):
          %0 = arith.extf %x : bf16 to f32
          %1 = arith.extf %y : bf16 to f32
          %2 = arith.mulf %0, %1 : f32
          %3 = arith.addf %acc, %2 : f32
          linalg.yield %3 : f32
        }
      }
    }
  }
  return
}

func.func @ragged_tile(%a: memref<2x64x48xbf16>, %v: memref<2x256x32xbf16>, %c: memref<2x64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  scf.forall (%h) in (2) {
    scf.for %q = %c0 to %c128 step %c64 {
      scf.for %j = %c0 to %c192 step %c48 {
        %av = memref.subview %a[%h, 0, 0] [1, 64, 48] [1, 1, 1] : memref<2x64x48xbf16> to memref<64x48xbf16, strided<[48, 1], offset: ?>>
        %bv = memref.subview %v[%h, %j, 0] [1, 48, 32] [1, 1, 1] : memref<2x256x32xbf16> to memref<48x32xbf16, strided<[32, 1], offset: ?>>
        %cv = memref.subview %c[%h, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
        linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%av, %bv : memref<64x48xbf16, strided<[48, 1], offset: ?>>, memref<48x32xbf16, strided<[32, 1], offset: ?>>) outs(%cv : memref<64x32xf32, strided<[32, 1], offset: ?>>) {
        ^bb0(%x: bf16, %y: bf16, %acc: f32):
          %0 = arith.extf %x : bf16 to f32
          %1 = arith.extf %y : bf16 to f32
          %2 = arith.mulf %0, %1 : f32
          %3 = arith.addf %acc, %2 : f32
          linalg.yield %3 : f32
        }
      }
    }
  }
  return
}
