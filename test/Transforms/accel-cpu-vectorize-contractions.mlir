// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,64,32 register-tile=4,16,1 pack-rhs=0 prefetch-c=0}))" | FileCheck %s

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

// Unknown sizes: the full register tiles are vectorized as for static sizes,
// and the remainder tiles (fewer rows, fewer columns, both) are vectorized to
// the register tile's shape with masks; every tile keeps its C block in
// registers across the K loop (masked read before it, masked write after).
// CHECK-LABEL: func @dynamic
// CHECK-SAME: (%[[A:.+]]: memref<?x?xf32>, %[[B:.+]]: memref<?x?xf32>, %[[C:.+]]: memref<?x?xf32>)
// CHECK-NOT: linalg.
// CHECK: %[[FULL:.+]] = vector.transfer_read %[[C]]{{.*}} {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x16xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.+}} = %[[FULL]])
// CHECK: vector.transfer_write %{{.+}}, %[[C]]
// Fewer rows:
// CHECK: %[[ROWS:.+]] = vector.create_mask %{{.+}}, %c16 : vector<4x16xi1>
// CHECK: %[[RT:.+]] = vector.transfer_read %[[C]][{{.*}}], %{{.+}}, %[[ROWS]] {{.*}} vector<4x16xf32>
// CHECK-NEXT: scf.for {{.*}} iter_args(%{{.+}} = %[[RT]])
// CHECK: vector.transfer_read %[[A]]{{.*}}, %{{.+}} {in_bounds = [true, true]} : memref<?x?xf32>, vector<4x1xf32>
// CHECK: vector.fma
// CHECK: vector.transfer_write %{{.+}}, %[[C]][{{.*}}], %[[ROWS]]
// Fewer columns: B's row is read masked too.
// CHECK: %[[COLS:.+]] = vector.create_mask %c1, %{{.+}} : vector<1x16xi1>
// CHECK: vector.transfer_read %[[B]][{{.*}}], %{{.+}}, %[[COLS]] {{.*}} vector<1x16xf32>
// CHECK-NOT: linalg.
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

// -----

// Another op works on a view of C after the product (here a fill of row 9):
// the register tiles' C blocks still stay in registers across the K loop
// (upstream's hoistRedundantVectorTransfers gives up on a buffer with any
// view-like user anywhere in the function; a partial-size product used to
// lose hoisting to its own remainder tiles' subviews this way). The loop
// has no other access to C.
// CHECK-LABEL: func @view_elsewhere_keeps_hoisting
// CHECK-SAME: %[[C:[^:]+]]: memref<10x40xf32>
// CHECK: %[[CT:.+]] = vector.transfer_read %[[C]]{{.*}} : memref<10x40xf32>, vector<4x16xf32>
// CHECK-NEXT: %[[ACC:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[CT]]) -> (vector<4x16xf32>)
// CHECK-NOT: %[[C]]
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: vector.transfer_write %[[ACC]], %[[C]]
// CHECK: %[[ROW:.+]] = memref.subview %[[C]][9, 0] [1, 40] [1, 1]
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[ROW]]
func.func @view_elsewhere_keeps_hoisting(%a: memref<10x64xf32>, %b: memref<64x40xf32>, %c: memref<10x40xf32>) {
  linalg.matmul ins(%a, %b : memref<10x64xf32>, memref<64x40xf32>) outs(%c : memref<10x40xf32>)
  %row = memref.subview %c[9, 0] [1, 40] [1, 1] : memref<10x40xf32> to memref<1x40xf32, strided<[40, 1], offset: 360>>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%row : memref<1x40xf32, strided<[40, 1], offset: 360>>)
  return
}

// -----

// The hoisting is refused when the loop also touches C elsewhere: here C is
// also the left operand (an in-place product the pass's contract excludes,
// but the hoisting must not make it silently worse): the C block is read and
// written inside the K loop.
// CHECK-LABEL: func @c_read_in_loop
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read %arg1
// CHECK: vector.transfer_read %arg1
// CHECK: vector.transfer_write %{{.+}}, %arg1[{{.*}}] {{.*}}memref<16x16xf32>
// CHECK-NEXT: }
func.func @c_read_in_loop(%a: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul ins(%c, %a : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// N = 40: two full 16-column tiles and a static 8-column remainder, which is
// not a whole 512-bit vector: it is vectorized to the full 16 lanes with a
// mask (an 8-lane vector here, a 44-lane one at nr = 64, is split by LLVM
// into pieces and ran ~20x slower than a full tile).
// CHECK-LABEL: func @static_ragged_n
// CHECK-NOT: vector<4x8xf32>
// CHECK: %[[MASK:.+]] = vector.create_mask %c4, %c8 : vector<4x16xi1>
// CHECK: vector.transfer_read %arg2[%{{.+}}, %c32], %{{.+}}, %[[MASK]] {{.*}} : memref<8x40xf32>, vector<4x16xf32>
// CHECK: vector.transfer_write %{{.+}}, %arg2[%{{.+}}, %c32], %[[MASK]] {{.*}} : vector<4x16xf32>, memref<8x40xf32>
// CHECK-NOT: vector<4x8xf32>
func.func @static_ragged_n(%a: memref<8x8xf32>, %b: memref<8x40xf32>, %c: memref<8x40xf32>) {
  linalg.matmul ins(%a, %b : memref<8x8xf32>, memref<8x40xf32>) outs(%c : memref<8x40xf32>)
  return
}

// -----

// A linalg op in the loop writes C between the products (FlashAttention's
// rescale of its accumulator): the C block may stay in registers across
// the K loop, but not across the outer loop. linalg ops declare both their
// operands' effects and recursive ones; the access check once skipped every
// op with recursive effects, and so hoisted C out of the outer loop past
// the generic's writes (attention results were wrong).
// CHECK-LABEL: func @c_written_by_generic_in_loop
// CHECK-SAME: %[[C:[^:]+]]: memref<4x16xf32>
// CHECK: scf.for
// CHECK: linalg.generic {{.+}} outs(%[[C]] : memref<4x16xf32>)
// CHECK: %[[CT:.+]] = vector.transfer_read %[[C]]
// CHECK: %[[ACC:.+]] = scf.for {{.*}} iter_args(%{{.+}} = %[[CT]]) -> (vector<4x16xf32>)
// CHECK: vector.transfer_write %[[ACC]], %[[C]]{{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @c_written_by_generic_in_loop(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%c : memref<4x16xf32>) {
    ^bb0(%out: f32):
      %m = arith.mulf %out, %s : f32
      linalg.yield %m : f32
    }
    linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  }
  return
}
