// RUN: accel-opt %s -split-input-file -mlir-print-local-scope --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1}))" | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1 pack-rhs=0 prefetch-c=0}))" | FileCheck %s --check-prefix=PLAIN
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{cache-tile=64,32,32 register-tile=4,16,1 threads=2}))" | FileCheck %s --check-prefix=THREADS

// What the pass does for GEMM speed on top of tiling and vectorization
// (accel-cpu-vectorize-contractions.mlir checks those with these three off):
// B packed into panels, C started from the fill value, the next tile's C
// lines prefetched.

// B packing: B's rows are 4 KiB apart (a view of a 1024-column matrix), so
// each 32 x 32 block of B (Kc x Nc) is copied into two panels of 16 columns
// before the M cache loop, the last panel's missing columns read as zeros (a
// masked row read); the register tiles read B from the panels (stride 16
// elements), never from B.
// CHECK-LABEL: func @pack_rhs
// CHECK-SAME: (%[[A:.+]]: memref<32x64xf32>, %[[B:.+]]: memref<64x40xf32, strided<[1024, 1]>>, %[[C:.+]]: memref<32x40xf32>)
// CHECK: scf.for %[[N0:.+]] = %c0 to %c40 step %c32
// CHECK: scf.for %[[K0:.+]] = %c0 to %c64 step %c32
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x16xf32>
// CHECK: scf.for %[[J:.+]] =
// CHECK: %[[W:.+]] = affine.min
// CHECK: %[[MASK:.+]] = vector.create_mask %[[W]] : vector<16xi1>
// CHECK: scf.for %{{.+}} = %c0 to %c32 step %c1
// CHECK: %[[ROW:.+]] = vector.maskedload %[[B]][{{.*}}], %[[MASK]], %{{.+}} : memref<64x40xf32, strided<[1024, 1]>>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: vector.store %[[ROW]], %[[P]][{{.*}}, %c0] : memref<2x32x16xf32>, vector<16xf32>
// CHECK-NOT: %[[B]]
// CHECK: vector.transfer_read %[[P]]{{.*}} : memref<2x32x16xf32>, vector<1x16xf32>
// CHECK-NOT: %[[B]]
// CHECK: return
// PLAIN-LABEL: func @pack_rhs
// PLAIN-NOT: memref.alloc
// PLAIN: vector.transfer_read %arg1{{.*}} : memref<64x40xf32, strided<[1024, 1]>>, vector<1x16xf32>
func.func @pack_rhs(%a: memref<32x64xf32>, %b: memref<64x40xf32, strided<[1024, 1]>>, %c: memref<32x40xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x40xf32, strided<[1024, 1]>>) outs(%c : memref<32x40xf32>)
  return
}

// -----

// B a transposed copy of a [N, K] buffer (a linear layer's weight, what
// accel-cpu-transpose-rhs makes): each block of B is packed from the
// [N, K] source itself, 16 source rows along K at a time, each 16 x 16
// square loaded row by row, transposed by shuffles and stored as 16 panel
// rows; whole squares unmasked, the last panel's rows past N masked off
// (zeros). The copy and its transpose go. With B's rows 160 bytes apart and
// M = 8 rows the copy is packed anyway (packing is cheaper than the copy).
// CHECK-LABEL: func @pack_rhs_from_nk
// CHECK-SAME: (%[[A:.+]]: memref<8x64xf32>, %[[W:.+]]: memref<40x64xf32>, %[[C:.+]]: memref<8x40xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref<64x40xf32>
// CHECK: scf.for %[[N0:.+]] = %c0 to %c40 step %c32
// CHECK: scf.for %[[K0:.+]] = %c0 to %c64 step %c32
// CHECK: %[[SRC:.+]] = memref.subview %[[W]][%[[N0]], %[[K0]]] [%{{.+}}, 32] [1, 1]
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x16xf32>
// CHECK: scf.if
// CHECK: scf.for %{{.+}} = %c0 to %c32 step %c16
// CHECK: memref.prefetch %[[SRC]]
// CHECK-COUNT-16: vector.load %[[W]][{{.*}}] : memref<40x64xf32>, vector<16xf32>
// CHECK: vector.shuffle
// CHECK-COUNT-16: vector.store %{{.+}}, %[[P]][{{.*}}] : memref<2x32x16xf32>, vector<16xf32>
// CHECK: } else {
// CHECK: %[[M:.+]] = vector.create_mask
// CHECK: vector.maskedload %[[W]][{{.*}}], %[[M]]
// CHECK-NOT: memref<64x40xf32>
// CHECK: vector.transfer_read %[[P]]{{.*}} : memref<2x32x16xf32>, vector<1x16xf32>
// CHECK-NOT: memref<64x40xf32>
// CHECK: return
// Packing off: the product reads the copy.
// PLAIN-LABEL: func @pack_rhs_from_nk
// PLAIN: linalg.transpose
// PLAIN: vector.transfer_read %[[BT:.+]][{{.*}} : memref<64x40xf32>, vector<1x16xf32>
func.func @pack_rhs_from_nk(%a: memref<8x64xf32>, %w: memref<40x64xf32>, %c: memref<8x40xf32>) {
  %bt = memref.alloc() : memref<64x40xf32>
  linalg.transpose ins(%w : memref<40x64xf32>) outs(%bt : memref<64x40xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %bt : memref<8x64xf32>, memref<64x40xf32>) outs(%c : memref<8x40xf32>)
  return
}

// -----

// The copy read by something else too: it stays, with its transpose,
// and the product reads it (in place: its rows are 160 bytes apart).
// CHECK-LABEL: func @copy_read_elsewhere
// CHECK: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read %{{.+}} : memref<64x40xf32>, vector<1x16xf32>
// CHECK: memref.copy
func.func @copy_read_elsewhere(%a: memref<32x64xf32>, %w: memref<40x64xf32>, %c: memref<32x40xf32>, %d: memref<64x40xf32>) {
  %bt = memref.alloc() : memref<64x40xf32>
  linalg.transpose ins(%w : memref<40x64xf32>) outs(%bt : memref<64x40xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %bt : memref<32x64xf32>, memref<64x40xf32>) outs(%c : memref<32x40xf32>)
  memref.copy %bt, %d : memref<64x40xf32> to memref<64x40xf32>
  return
}

// -----

// A fused epilogue that writes W's buffer (C-shaped: a square W): a block
// packed from W after an earlier block's epilogue wrote it would read the
// new values, so the copy stays (made before the product) and the panels
// come from it; the epilogue is still applied to the register tiles.
// CHECK-LABEL: func @epilogue_writes_w
// CHECK: linalg.transpose
// CHECK: arith.maximumf %{{.+}} : vector<4x16xf32>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @epilogue_writes_w(%a: memref<48x48xf32>, %w: memref<48x48xf32>, %c: memref<48x48xf32>) {
  %bt = memref.alloc() : memref<48x48xf32>
  linalg.transpose ins(%w : memref<48x48xf32>) outs(%bt : memref<48x48xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %bt : memref<48x48xf32>, memref<48x48xf32>) outs(%c : memref<48x48xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%c : memref<48x48xf32>) outs(%w : memref<48x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// B's rows 160 bytes apart: read in place (packing measured no faster at
// a stride of 2 KiB and below).
// CHECK-LABEL: func @narrow_rows_no_pack
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read %arg1{{.*}} : memref<64x40xf32>, vector<1x16xf32>
func.func @narrow_rows_no_pack(%a: memref<32x64xf32>, %b: memref<64x40xf32>, %c: memref<32x40xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x40xf32>) outs(%c : memref<32x40xf32>)
  return
}

// -----

// Too few rows of A to pay for the copy (M = 8 < 4 mr): B is read in place.
// CHECK-LABEL: func @few_rows_no_pack
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read %arg1{{.*}} : memref<64x40xf32, strided<[1024, 1]>>, vector<1x16xf32>
func.func @few_rows_no_pack(%a: memref<8x64xf32>, %b: memref<64x40xf32, strided<[1024, 1]>>, %c: memref<8x40xf32>) {
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x40xf32, strided<[1024, 1]>>) outs(%c : memref<8x40xf32>)
  return
}

// -----

// C = 0; C += A B with K = 64 in two K blocks of 32: the first K block's
// register tiles start from zero (no read of C before their K loop), the
// second block's read what the first wrote, and the fill of C is gone.
// Transposing B (accel-cpu-transpose-rhs's copy) between the fill and the
// product touches other buffers only and does not stop it (the panels are
// then packed from the transpose's source, and the transpose goes:
// @pack_rhs_from_nk).
// CHECK-LABEL: func @start_from_fill
// CHECK-SAME: %[[C:[^:]+]]: memref<32x40xf32>)
// CHECK-DAG: %[[ZERO:.+]] = arith.constant dense<0.000000e+00> : vector<4x16xf32>
// CHECK-NOT: linalg.fill
// CHECK-NOT: linalg.transpose
// First K block: the accumulators start at zero.
// CHECK: scf.for %{{.+}} = %c0 to %c32 step %c1 iter_args(%{{.+}} = %[[ZERO]]) -> (vector<4x16xf32>)
// CHECK: vector.transfer_write %{{.+}}, %[[C]]
// The later K block: reads C, accumulates, writes it.
// CHECK: %[[CT:.+]] = vector.transfer_read %[[C]]
// CHECK: scf.for %{{.+}} iter_args(%{{.+}} = %[[CT]]) -> (vector<4x16xf32>)
// PLAIN-LABEL: func @start_from_fill
// PLAIN: linalg.fill
// PLAIN: vector.transfer_read %arg2
func.func @start_from_fill(%a: memref<32x64xf32>, %bt: memref<40x64xf32>, %c: memref<32x40xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x40xf32>)
  %b = memref.alloc() : memref<64x40xf32>
  linalg.transpose ins(%bt : memref<40x64xf32>) outs(%b : memref<64x40xf32>) permutation = [1, 0]
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x40xf32>) outs(%c : memref<32x40xf32>)
  return
}

// -----

// Any fill value: the tiles start from it. Rows 30 and 31 (a 2-row
// remainder) start from it too.
// CHECK-LABEL: func @start_from_fill_value
// CHECK-DAG: arith.constant dense<1.500000e+00> : vector<4x16xf32>
// CHECK-DAG: arith.constant dense<1.500000e+00> : vector<2x16xf32>
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @start_from_fill_value(%a: memref<30x16xf32>, %b: memref<16x32xf32>, %c: memref<30x32xf32>) {
  %v = arith.constant 1.5 : f32
  linalg.fill ins(%v : f32) outs(%c : memref<30x32xf32>)
  linalg.matmul ins(%a, %b : memref<30x16xf32>, memref<16x32xf32>) outs(%c : memref<30x32xf32>)
  return
}

// -----

// The fill stays where it must: C written between the fill and the product,
// a K of unknown size (it may be 0: then C must hold the fill), K = 0.
// CHECK-LABEL: func @fill_kept_write_between
// CHECK: linalg.fill
// CHECK-LABEL: func @fill_kept_dynamic_k
// CHECK: linalg.fill
// CHECK-LABEL: func @fill_kept_k0
// CHECK: linalg.fill
func.func @fill_kept_write_between(%a: memref<32x16xf32>, %b: memref<16x32xf32>, %c: memref<32x32xf32>, %x: f32) {
  %zero = arith.constant 0.0 : f32
  %i = arith.constant 3 : index
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  memref.store %x, %c[%i, %i] : memref<32x32xf32>
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x32xf32>) outs(%c : memref<32x32xf32>)
  return
}
func.func @fill_kept_dynamic_k(%a: memref<32x?xf32>, %b: memref<?x32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x?xf32>, memref<?x32xf32>) outs(%c : memref<32x32xf32>)
  return
}
func.func @fill_kept_k0(%a: memref<32x0xf32>, %b: memref<0x32xf32>, %c: memref<32x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<32x32xf32>)
  linalg.matmul ins(%a, %b : memref<32x0xf32>, memref<0x32xf32>) outs(%c : memref<32x32xf32>)
  return
}

// -----

// Before each register tile's K loop: write prefetches of the next tile's C
// rows (4 rows down, clamped to the last row, 31), one per 64-byte line of
// its 16 columns.
// CHECK-LABEL: func @prefetch_next_tile
// CHECK-SAME: %[[C:[^:]+]]: memref<32x16xf32>)
// CHECK: scf.for %[[M:.+]] = %c0 to %c32 step %c4
// CHECK: %[[R0:.+]] = affine.min affine_map<(d0)[s0] -> (d0 + 4, 31)>(%[[M]])
// CHECK: memref.prefetch %[[C]][%[[R0]], %{{.+}}], write, locality<3>, data
// CHECK: affine.min affine_map<(d0)[s0] -> (d0 + 5, 31)>(%[[M]])
// CHECK: memref.prefetch %[[C]]
// CHECK: affine.min affine_map<(d0)[s0] -> (d0 + 6, 31)>(%[[M]])
// CHECK: memref.prefetch %[[C]]
// CHECK: affine.min affine_map<(d0)[s0] -> (d0 + 7, 31)>(%[[M]])
// CHECK: memref.prefetch %[[C]]
// CHECK-NOT: memref.prefetch
// CHECK: scf.for {{.*}} iter_args
// PLAIN-LABEL: func @prefetch_next_tile
// PLAIN-NOT: memref.prefetch
func.func @prefetch_next_tile(%a: memref<32x16xf32>, %b: memref<16x16xf32>, %c: memref<32x16xf32>) {
  linalg.matmul ins(%a, %b : memref<32x16xf32>, memref<16x16xf32>) outs(%c : memref<32x16xf32>)
  return
}

// -----

// With threads, the M and N cache blocks of C form an scf.forall; a product
// with fewer than 2 blocks a thread gets smaller M blocks (multiples of mr,
// halved while under 2 blocks a thread and at least 8 mr rows): 64 x 32 with
// Mc = 64 is one block; 16-row blocks make 4, 2 for each of 2 threads.
// THREADS-LABEL: func @threads_split_m
// THREADS: scf.forall (%{{.+}}) = (0) to (64) step (16)
// THREADS-LABEL: func @threads_enough_blocks
// THREADS: scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (128, 256) step (32, 64)
func.func @threads_split_m(%a: memref<64x16xf32>, %b: memref<16x32xf32>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x16xf32>, memref<16x32xf32>) outs(%c : memref<64x32xf32>)
  return
}
func.func @threads_enough_blocks(%a: memref<256x16xf32>, %b: memref<16x128xf32>, %c: memref<256x128xf32>) {
  linalg.matmul ins(%a, %b : memref<256x16xf32>, memref<16x128xf32>) outs(%c : memref<256x128xf32>)
  return
}

// -----

// With threads and a B worth packing (rows 4 KiB apart), the N and K cache
// loops stay sequential: in each, the threads copy disjoint panels of the B
// block (an scf.forall over the panels), then an scf.forall over the M
// blocks shares it (M alone gives 4 blocks of 32 rows: 2 a thread). The
// first K block (peeled) starts from the fill; the second reads C.
// THREADS-LABEL: func @threads_shared_panels
// THREADS-NOT: linalg.fill
// THREADS: scf.for %{{.+}} = %{{.+}} to %{{.+}} step %c32 {
// THREADS: %[[P0:.+]] = memref.alloc() {{.*}} : memref<2x32x16xf32>
// THREADS: scf.forall (%{{.+}}) = (0) to (32) step (16) {
// THREADS: vector.store %{{.+}}, %[[P0]]
// THREADS: scf.forall (%{{.+}}) = (0) to (128) step (32) {
// THREADS-NOT: vector.transfer_read %arg2
// THREADS: vector.transfer_read %[[P0]]
// THREADS: vector.transfer_write %{{.+}}, %arg2
// THREADS: %[[P1:.+]] = memref.alloc() {{.*}} : memref<2x32x16xf32>
// THREADS: scf.forall (%{{.+}}) = (0) to (32) step (16) {
// THREADS: vector.store %{{.+}}, %[[P1]]
// THREADS: scf.forall (%{{.+}}) = (0) to (128) step (32) {
// THREADS: vector.transfer_read %arg2
// THREADS: vector.transfer_read %[[P1]]
// THREADS: vector.transfer_write %{{.+}}, %arg2
// The M block spreads the register tiles evenly: 200 rows in blocks of 64
// would give the threads 32 and 18 tiles of 4 rows (the last block is 8
// rows); blocks of 52 give 26 and 24.
// THREADS-LABEL: func @threads_balanced_blocks
// THREADS: scf.forall (%{{.+}}) = (0) to (200) step (52) {
// THREADS-LABEL: func @threads_one_row_block
// THREADS-NOT: memref.alloc
// THREADS: scf.forall (%{{.+}}) = (0) to (1024) step (32) {
// THREADS: %[[OWN:.+]] = memref.alloc() {{.*}} : memref<2x32x16xf32>
// THREADS: vector.store %{{.+}}, %[[OWN]]
// THREADS: vector.transfer_read %[[OWN]]
// THREADS: return
// THREADS-LABEL: func @threads_two_row_blocks
// THREADS: scf.forall (%{{.+}}) = (0) to (32) step (16) {
// THREADS: scf.forall (%{{.+}}) = (0) to (100) step
func.func @threads_shared_panels(%a: memref<128x64xf32>, %b: memref<64x1024xf32>, %c: memref<128x1024xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<128x1024xf32>)
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x1024xf32>) outs(%c : memref<128x1024xf32>)
  return
}
func.func @threads_balanced_blocks(%a: memref<200x64xf32>, %b: memref<64x1024xf32>, %c: memref<200x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<200x64xf32>, memref<64x1024xf32>) outs(%c : memref<200x1024xf32>)
  return
}
// 32 rows are one M block, too few for 2 threads to share B's panels: the
// forall covers the N blocks, each task owning whole columns of C, and each
// packs its own block of B (no other task reads it; B read in place with
// rows far apart made two threads slower than one, the Llama block at S
// 128).
func.func @threads_one_row_block(%a: memref<32x64xf32>, %b: memref<64x1024xf32>, %c: memref<32x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf32>, memref<64x1024xf32>) outs(%c : memref<32x1024xf32>)
  return
}
// 100 rows (two blocks of 64) are split into smaller blocks, enough for
// both threads to share each packed block of B.
func.func @threads_two_row_blocks(%a: memref<100x64xf32>, %b: memref<64x1024xf32>, %c: memref<100x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<100x64xf32>, memref<64x1024xf32>) outs(%c : memref<100x1024xf32>)
  return
}

// -----

// An empty product (K = 0) is left alone with threads too (upstream's tiling
// into an scf.forall crashed on it).
// THREADS-LABEL: func @empty_k_threads
// THREADS-NOT: scf.forall
// THREADS: return
func.func @empty_k_threads(%a: memref<32x0xf32>, %b: memref<0x32xf32>, %c: memref<32x32xf32>) {
  linalg.matmul ins(%a, %b : memref<32x0xf32>, memref<0x32xf32>) outs(%c : memref<32x32xf32>)
  return
}
