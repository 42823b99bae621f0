// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8}),canonicalize)' | FileCheck %s
// No AMX (or no amx-tile): the contractions stay for the dot kernels.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=avx512f,avx512bf16,avx512vnni}))' | FileCheck %s --check-prefix=NOAMX
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-bf16,amx-int8}))' | FileCheck %s --check-prefix=NOAMX
// Threads: the column panels are the tasks of an scf.forall.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8 threads=2}))' | FileCheck %s --check-prefix=THREADS
// bf16-subnormals=keep: bf16 stays on the f32 path (tdpbf16ps flushes
// subnormals); int8 is unaffected.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8 bf16-subnormals=keep}))' | FileCheck %s --check-prefix=KEEP

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// M = 40, N = 50, K = 70: nothing divides. B is packed into 16-column blocks
// of K pairs, K padded to 96 (3 tile steps of 32): [4, 48, 32]; A into 16-row
// tiles of 32 k values: [3, 3, 16, 32], rows 40-47 zero; C goes through a
// [48, 64] copy, not filled (the zero fill becomes tile_zero and is gone),
// then its [40, 50] corner is copied back. Blocks of 32 x 32 (two A and two
// B tiles, four C tiles) over the 32-column panels, then a 16-row rest.
// CHECK-LABEL: func @ragged
// CHECK-SAME: (%[[A:.+]]: memref<40x70xbf16>, %[[B:.+]]: memref<70x50xbf16>, %[[C:.+]]: memref<40x50xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[BP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4x48x32xbf16>
// CHECK: vector.interleave {{.*}} : vector<16xbf16> -> vector<32xbf16>
// CHECK: %[[AP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<3x3x16x32xbf16>
// CHECK: vector.transfer_read %[[A]][%{{.+}}, %c64], %{{.+}} : memref<40x70xbf16>, vector<32xbf16>
// CHECK: %[[CP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<48x64xf32>
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[N0:.+]] = %c0 to %c64 step %c32 {
// CHECK-COUNT-4: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK: scf.for %{{.+}} = %c0 to %c3 step %c1 iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK: amx.tile_load %[[AP]][%c0, %{{.+}}, %c0, %c0] : memref<3x3x16x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_load %[[AP]][%c1, %{{.+}}, %c0, %c0]
// CHECK: amx.tile_load %[[BP]][%{{.+}}, %{{.+}}, %c0] : memref<4x48x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_load %[[BP]]
// CHECK-COUNT-4: amx.tile_mulf {{.*}} : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
// CHECK: scf.yield
// CHECK: amx.tile_store %[[CP]][%c0, %[[N0]]]
// CHECK: amx.tile_store %[[CP]][%c0, %{{.+}}]
// CHECK: amx.tile_store %[[CP]][%c16, %[[N0]]]
// CHECK: amx.tile_store %[[CP]][%c16, %{{.+}}]
// CHECK-COUNT-2: amx.tile_zero
// CHECK: amx.tile_load %[[AP]][%c2,
// CHECK-COUNT-2: amx.tile_mulf
// CHECK: amx.tile_store %[[CP]][%c32, %[[N0]]]
// CHECK: %[[CORNER:.+]] = memref.subview %[[CP]][0, 0] [40, 50] [1, 1]
// CHECK: linalg.copy ins(%[[CORNER]] : {{.*}}) outs(%[[C]] : memref<40x50xf32>)
// CHECK-NOT: linalg.generic
// NOAMX-LABEL: func @ragged
// NOAMX-NOT: amx.
// NOAMX: linalg.generic
// Below 2^26 multiply-adds, threads change nothing.
// THREADS-LABEL: func @ragged
// THREADS-NOT: scf.forall
// THREADS: return
// KEEP-LABEL: func @ragged
// KEEP-NOT: amx.
// KEEP: linalg.generic
func.func @ragged(%a: memref<40x70xbf16>, %b: memref<70x50xbf16>, %c: memref<40x50xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<40x50xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<40x70xbf16>, memref<70x50xbf16>) outs(%c : memref<40x50xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// int8, 32 x 32 x 128, accumulating (no fill): C is read and written in
// place (16 divides M and N), its tiles loaded before the K loop; tdpbssd
// (tile_muli, signed x signed) on 16 x 64 tiles, K = 128 in two steps. A's
// rows are 128 bytes apart and its tiles whole: they load from A itself,
// not from a packed copy.
// CHECK-LABEL: func @i8_inplace
// CHECK-SAME: (%[[A:.+]]: memref<32x128xi8>, %[[B:.+]]: memref<128x32xi8>, %[[C:.+]]: memref<32x32xi32>)
// CHECK: %[[BP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x64xi8>
// CHECK-NOT: memref.alloc
// CHECK: amx.tile_load %[[C]][%c0, %c0] : memref<32x32xi32> into !amx.tile<16x16xi32>
// CHECK: amx.tile_load %[[C]][%c0, %c16]
// CHECK: amx.tile_load %[[C]][%c16, %c0]
// CHECK: amx.tile_load %[[C]][%c16, %c16]
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 iter_args
// CHECK: amx.tile_load %[[A]][%c0, %{{.+}}] : memref<32x128xi8> into !amx.tile<16x64xi8>
// CHECK: amx.tile_load %[[A]][%c16, %{{.+}}] : memref<32x128xi8> into !amx.tile<16x64xi8>
// CHECK-COUNT-4: amx.tile_muli %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
// CHECK: amx.tile_store %[[C]][%c0, %c0]
// CHECK-NOT: linalg.copy
// CHECK: return
// KEEP-LABEL: func @i8_inplace
// KEEP: amx.tile_muli
func.func @i8_inplace(%a: memref<32x128xi8>, %b: memref<128x32xi8>, %c: memref<32x32xi32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x128xi8>, memref<128x32xi8>) outs(%c : memref<32x32xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// A fill that is not zero stays, and C is loaded into the tiles. A config
// naming another kernel (the AVX-512 dot kernel's) is left alone, whatever
// the features; a config naming AMX's sets the tiles: 16 x 16 blocks, K
// blocks of 64 (the first from zero, then a loop over the rest). A's rows
// are 512 bytes apart: its tiles load from a packed copy.
// CHECK-LABEL: func @fills_and_configs
// CHECK: linalg.fill ins(%{{.+}} : f32) outs(%[[C1:.+]] : memref<32x32xf32>)
// CHECK: %[[AP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x8x16x32xbf16>
// CHECK: amx.tile_load %[[C1]][%c0, %c0] : memref<32x32xf32> into !amx.tile<16x16xf32>
// CHECK: amx.tile_load %[[AP]][%c0, %{{.+}}, %c0, %c0] : memref<2x8x16x32xbf16> into !amx.tile<16x32xbf16>
// CHECK: amx.tile_mulf
// CHECK: linalg.generic
// CHECK-SAME: kernel = "cpu-avx512bf16"
// CHECK: amx.tile_zero
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 iter_args(%{{[^ ]+}} = %{{[^ ]+}}) -> (!amx.tile<16x16xf32>)
// CHECK: scf.for %{{.+}} = %c64 to %c256 step %c64 {
// CHECK: amx.tile_load %{{.+}} : memref<32x32xf32> into !amx.tile<16x16xf32>
func.func @fills_and_configs(%a: memref<32x256xbf16>, %b: memref<256x32xbf16>, %c1: memref<32x32xf32>, %c2: memref<32x32xf32>, %c3: memref<32x32xf32>) {
  %one = arith.constant 1.0 : f32
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%one : f32) outs(%c1 : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x256xbf16>, memref<256x32xbf16>) outs(%c1 : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x256xbf16>, memref<256x32xbf16>) outs(%c2 : memref<32x32xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512bf16", tile = [132, 0, 2048], mma = [6, 64, 2]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%z : f32) outs(%c3 : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x256xbf16>, memref<256x32xbf16>) outs(%c3 : memref<32x32xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [0, 0, 64], mma = [16, 16, 32]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// 512 x 512 x 256 (2^26 multiply-adds) with threads: A's 512 rows are
// packed in parallel, and one parallel region runs the 16 column panels of
// 32 as two tasks of 8 (each a contiguous chunk of panels over every M and
// K block), each first packing its own 256 columns of B into their 16
// panels of the packed B; C is written in place.
// THREADS-LABEL: func @large
// THREADS-SAME: %[[B:[a-z0-9]+]]: memref<256x512xbf16>
// THREADS: %[[BP:.+]] = memref.alloc() {{.*}} : memref<32x128x32xbf16>
// THREADS-NOT: scf.forall (%{{.+}}) in (128)
// THREADS: memref.alloc() {{.*}} : memref<32x8x16x32xbf16>
// THREADS: scf.forall (%{{.+}}) in (512)
// THREADS: scf.forall (%[[T:.+]]) in (2) {
// THREADS: %[[LO:.+]] = arith.muli %[[T]], %c256
// THREADS: %[[HI:.+]] = arith.minui %{{.+}}, %c512
// THREADS: memref.subview %[[B]][0, %[[LO]]] [256, 256] [1, 1]
// THREADS: %[[P0:.+]] = arith.divui %[[LO]], %c16
// THREADS: memref.subview %[[BP]][%[[P0]], 0, 0] [16, 128, 32] [1, 1, 1]
// THREADS: vector.interleave
// THREADS: scf.for %{{.+}} = %[[LO]] to %[[HI]] step %c32
// THREADS: amx.tile_mulf
// THREADS-NOT: scf.forall
// THREADS: return
// CHECK-LABEL: func @large
// CHECK-NOT: scf.forall
// CHECK: return
func.func @large(%a: memref<512x256xbf16>, %b: memref<256x512xbf16>, %c: memref<512x512xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<512x256xbf16>, memref<256x512xbf16>) outs(%c : memref<512x512xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk2 = affine_map<(m, n, k) -> (m, k)>
#kn2 = affine_map<(m, n, k) -> (k, n)>
#mn2 = affine_map<(m, n, k) -> (m, n)>
#id2 = affine_map<(i, j) -> (i, j)>

// FlashAttention's P·V on AMX: A is the bf16 rounding of an f32 buffer,
// written by an elementwise generic only this GEMM reads. The kernel rounds
// while it packs A (the truncation keeps its accel.bf16_flush), and the
// generic is gone. The GEMM of the loop's other operand (the query tile of
// Q·Kᵀ, rows 128 bytes apart) loads A's tiles from A itself.
// CHECK-LABEL: func @fused_and_hoisted
// CHECK-NOT: memref<2x2x16x32xbf16>
// CHECK: scf.for
// CHECK-NOT: memref<2x2x16x32xbf16>
// CHECK: amx.tile_load %arg0[%c0, %{{.+}}] : memref<32x64xbf16> into !amx.tile<16x32xbf16>
// CHECK: vector.load %{{.+}} : memref<32x32xf32>, vector<32xf32>
// CHECK: arith.truncf %{{.+}} {accel.bf16_flush} : vector<32xf32> to vector<32xbf16>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @fused_and_hoisted(%q: memref<32x64xbf16>, %kt: memref<4x64x32xbf16>, %v: memref<4x32x64xbf16>, %s: memref<32x32xf32>, %o: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %kti = memref.subview %kt[%i, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xbf16> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
    linalg.generic {indexing_maps = [#mk2, #kn2, #mn2], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%q, %kti : memref<32x64xbf16>, memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%s : memref<32x32xf32>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %ae = arith.extf %a : bf16 to f32
      %be = arith.extf %b : bf16 to f32
      %p = arith.mulf %ae, %be : f32
      %r = arith.addf %c, %p : f32
      linalg.yield %r : f32
    }
    %pb = memref.alloc() : memref<32x32xbf16>
    linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%s : memref<32x32xf32>) outs(%pb : memref<32x32xbf16>) {
    ^bb0(%x: f32, %y: bf16):
      %t = arith.truncf %x {accel.bf16_flush} : f32 to bf16
      linalg.yield %t : bf16
    }
    %vi = memref.subview %v[%i, 0, 0] [1, 32, 64] [1, 1, 1] : memref<4x32x64xbf16> to memref<32x64xbf16, strided<[64, 1], offset: ?>>
    linalg.generic {indexing_maps = [#mk2, #kn2, #mn2], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%pb, %vi : memref<32x32xbf16>, memref<32x64xbf16, strided<[64, 1], offset: ?>>) outs(%o : memref<32x64xf32>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %ae = arith.extf %a : bf16 to f32
      %be = arith.extf %b : bf16 to f32
      %p = arith.mulf %ae, %be : f32
      %r = arith.addf %c, %p : f32
      linalg.yield %r : f32
    }
    memref.dealloc %pb : memref<32x32xbf16>
  }
  return
}

// -----

#mk3 = affine_map<(m, n, k) -> (m, k)>
#kn3 = affine_map<(m, n, k) -> (k, n)>
#mn3 = affine_map<(m, n, k) -> (m, n)>

// A GEMM in a loop whose A is defined outside it and not written in it,
// with rows 1 KiB apart (over the in-place limit): A is packed once, before
// the loop.
// CHECK-LABEL: func @hoisted_pack
// CHECK: %[[QA:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x16x32xbf16>
// CHECK: vector.load %arg0{{.+}} : memref<32x64xbf16, strided<[512, 1]>>, vector<32xbf16>
// CHECK: scf.for
// CHECK-NOT: memref<2x2x16x32xbf16>
// CHECK: amx.tile_load %[[QA]]
// CHECK: return
func.func @hoisted_pack(%q: memref<32x64xbf16, strided<[512, 1]>>, %kt: memref<4x64x32xbf16>, %s: memref<4x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %kti = memref.subview %kt[%i, 0, 0] [1, 64, 32] [1, 1, 1] : memref<4x64x32xbf16> to memref<64x32xbf16, strided<[32, 1], offset: ?>>
    %si = memref.subview %s[%i, 0, 0] [1, 32, 32] [1, 1, 1] : memref<4x32x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
    linalg.generic {indexing_maps = [#mk3, #kn3, #mn3], iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%q, %kti : memref<32x64xbf16, strided<[512, 1]>>, memref<64x32xbf16, strided<[32, 1], offset: ?>>) outs(%si : memref<32x32xf32, strided<[32, 1], offset: ?>>) {
    ^bb0(%a: bf16, %b: bf16, %c: f32):
      %ae = arith.extf %a : bf16 to f32
      %be = arith.extf %b : bf16 to f32
      %p = arith.mulf %ae, %be : f32
      %r = arith.addf %c, %p : f32
      linalg.yield %r : f32
    }
  }
  return
}

// -----

// One M block (M <= Mc): B is packed piece by piece in the loops, each K
// block's [64, 96] slab (here K blocks of 64: the configured tile) into one
// [6, 32, 32] piece right before its three 32-column panels use it; the
// kernels index the piece from its first column and k. No whole packed B.
// CHECK-LABEL: func @pack_in_loop
// CHECK-SAME: (%[[A:.+]]: memref<32x128xbf16>, %[[B:.+]]: memref<128x96xbf16>, %[[C:.+]]: memref<32x96xf32>)
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<6x32x32xbf16>
// CHECK-NOT: memref.alloc
// CHECK: %[[S0:.+]] = memref.subview %[[B]][0, 0] [64, 96] [1, 1]
// CHECK: vector.load %[[S0]]
// CHECK: vector.interleave
// CHECK: vector.store %{{.+}}, %[[P]]
// CHECK: scf.for %{{.+}} = %c0 to %c96 step %c32 {
// CHECK-COUNT-4: amx.tile_zero
// CHECK: amx.tile_load %[[A]]
// CHECK: amx.tile_load %[[A]]
// CHECK: amx.tile_load %[[P]][%{{.+}}, %{{.+}}, %c0] : memref<6x32x32xbf16> into !amx.tile<16x32xbf16>
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: %[[S1:.+]] = memref.subview %[[B]][64, 0] [64, 96] [1, 1]
// CHECK: vector.load %[[S1]]
// CHECK: vector.store %{{.+}}, %[[P]]
// CHECK: scf.for %{{.+}} = %c0 to %c96 step %c32 {
// CHECK: amx.tile_load %[[C]]
// CHECK: amx.tile_load %[[P]]
// CHECK-NOT: memref.alloc
// CHECK: return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @pack_in_loop(%a: memref<32x128xbf16>, %b: memref<128x96xbf16>, %c: memref<32x96xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<32x96xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x128xbf16>, memref<128x96xbf16>) outs(%c : memref<32x96xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [0, 0, 64], mma = [32, 32, 32]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
