// accel-cpu-amx-kernels with fuse-epilogues (the default): the elementwise
// generic that reads C next runs on each C block from a scratch buffer the
// last K block's tiles are stored to, one block behind along a panel's row
// blocks, and the whole-C generic goes.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8}),canonicalize)' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16,amx-int8 fuse-epilogues=false}))' | FileCheck %s --check-prefix=OFF

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// In place, 64 x 64 (two 32-row blocks per 32-column panel, K = 64: two
// K steps): the blocks' tiles go to slot (row block mod 2) of a [2, 32, 32]
// scratch. Each K step prefetches 16 of the block's C rows for writing and,
// but in the first block, applies the previous block's epilogue to 16 of
// its rows (a loop of one-row generics from the other slot), between the
// tile products; the panel's last block's epilogue follows the row loop.
// C itself is written by the epilogue only.
// CHECK-LABEL: func @in_place
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<64xf32>, %[[C:[a-z0-9]+]]: memref<64x64xf32>)
// CHECK-NOT: linalg.fill
// CHECK: %[[S:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// CHECK: scf.for %[[N0:.+]] = %c0 to %c64 step %c32 {
// CHECK: scf.for %[[M0:.+]] = %c0 to %c64 step %c32 {
// CHECK: %[[STEP:.+]] = arith.divui %[[M0]], %c32
// CHECK: %[[SLOT:.+]] = arith.remui %[[STEP]], %c2
// CHECK: scf.for %[[K:.+]] = %c0 to %c2 step %c1 iter_args
// CHECK: %[[R0:.+]] = arith.muli %[[K]], %c16
// CHECK: %[[R1:.+]] = arith.addi %[[R0]], %c16
// CHECK: %[[REND:.+]] = arith.minui %[[R1]], %c32
// CHECK: scf.for %[[R:.+]] = %[[R0]] to %[[REND]] step %c1 {
// CHECK: %[[PROW:.+]] = arith.addi %[[M0]], %[[R]]
// CHECK: memref.prefetch %[[C]][%[[PROW]], %[[N0]]], write, locality<3>, data
// CHECK: }
// CHECK-COUNT-4: amx.tile_mulf
// CHECK: %[[NOTFIRST:.+]] = arith.cmpi ne, %[[M0]], %c0
// CHECK: scf.if %[[NOTFIRST]] {
// CHECK: %[[PREV:.+]] = arith.subi %c1, %[[SLOT]]
// CHECK: %[[PBLOCK:.+]] = arith.subi %[[M0]], %c32
// CHECK: scf.for %[[ER:.+]] = %{{.+}} to %{{.+}} step %c1 {
// CHECK: %[[SV:.+]] = memref.subview %[[S]][%[[PREV]], %[[ER]], 0] [1, 1, 32] [1, 1, 1]
// CHECK: %[[EROW:.+]] = arith.addi %[[PBLOCK]], %[[ER]]
// CHECK: %[[BV:.+]] = memref.subview %[[BIAS]][%[[N0]]] [32] [1]
// CHECK: %[[CV:.+]] = memref.subview %[[C]][%[[EROW]], %[[N0]]] [1, 32] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[SV]], %[[BV]] : {{.*}}) outs(%[[CV]] : {{.*}})
// CHECK: arith.maximumf
// CHECK: scf.yield
// CHECK: amx.tile_store %[[S]][%[[SLOT]], %c0, %c0]
// CHECK: amx.tile_store %[[S]][%[[SLOT]], %c0, %c16]
// CHECK: amx.tile_store %[[S]][%[[SLOT]], %c16, %c0]
// CHECK: amx.tile_store %[[S]][%[[SLOT]], %c16, %c16]
// CHECK: }
// CHECK: %[[LAST:.+]] = memref.subview %[[S]][1, 0, 0] [1, 32, 32]
// CHECK: %[[LC:.+]] = memref.subview %[[C]][32, %[[N0]]] [32, 32]
// CHECK: linalg.generic {{.*}} ins(%[[LAST]], %{{.+}} : {{.*}}) outs(%[[LC]] : {{.*}})
// CHECK-NOT: amx.tile_store %[[C]]
// CHECK-NOT: outs(%[[C]] : memref<64x64xf32>)
// CHECK: return
// OFF-LABEL: func @in_place
// OFF-NOT: memref<2x32x32xf32>
// OFF: amx.tile_store %arg3
// OFF: linalg.generic {{.*}} ins(%arg2 : memref<64xf32>) outs(%arg3 : memref<64x64xf32>)
func.func @in_place(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %bias: memref<64xf32>, %c: memref<64x64xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<64xf32>) outs(%c : memref<64x64xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Out of place, C a temporary nothing reads afterwards: one 32 x 32 block,
// its epilogue right after its stores, into the bf16 output allocated
// after the GEMM (moved before it); C's buffer is never written and goes.
// CHECK-LABEL: func @cast_c_dead
// CHECK-NOT: memref<32x32xf32>
// CHECK: %[[D:.+]] = memref.alloc() {alignment = 64 : i64} : memref<32x32xbf16>
// CHECK: %[[S:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// CHECK: memref.prefetch %[[D]]
// CHECK: amx.tile_store %[[S]][%c0, %c0, %c0]
// CHECK: %[[SV:.+]] = memref.subview %[[S]][0, 0, 0] [1, 32, 32]
// CHECK: linalg.generic {{.*}} ins(%[[SV]] : {{.*}}) outs(%[[D]] : memref<32x32xbf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.generic
// CHECK: return %[[D]]
func.func @cast_c_dead(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>) -> memref<32x32xbf16> {
  %z = arith.constant 0.0 : f32
  %c = memref.alloc() {alignment = 64 : i64} : memref<32x32xf32>
  linalg.fill ins(%z : f32) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %d = memref.alloc() {alignment = 64 : i64} : memref<32x32xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x32xf32>) outs(%d : memref<32x32xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  memref.dealloc %c : memref<32x32xf32>
  return %d : memref<32x32xbf16>
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// Out of place with C read afterwards (returned): C's tiles are stored to
// C and the epilogue reads each row strip from it.
// CHECK-LABEL: func @cast_c_live
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<32x32xf32>, %[[D:[a-z0-9]+]]: memref<32x32xbf16>)
// CHECK-NOT: memref<2x32x32xf32>
// CHECK: amx.tile_store %[[C]][%c0, %c0]
// CHECK: linalg.generic {{.*}} ins(%{{.+}} : memref<32x32xf32{{.*}}>) outs(%{{.+}} : memref<32x32xbf16{{.*}}>)
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @cast_c_live(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>, %c: memref<32x32xf32>, %d: memref<32x32xbf16>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x32xf32>) outs(%d : memref<32x32xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// A padded C (M = 40): the tiles go to the padded copy as before, and the
// epilogue reads its [40, 32] corner and writes C: that is the copy back.
// CHECK-LABEL: func @padded_in_place
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: memref<32xf32>, %[[C:[a-z0-9]+]]: memref<40x32xf32>)
// CHECK: %[[P:.+]] = memref.alloc() {alignment = 64 : i64} : memref<48x32xf32>
// CHECK: amx.tile_store %[[P]]
// CHECK: %[[CORNER:.+]] = memref.subview %[[P]][0, 0] [40, 32] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[CORNER]], %[[BIAS]] : {{.*}}) outs(%[[C]] : memref<40x32xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return
func.func @padded_in_place(%a: memref<40x64xbf16>, %b: memref<64x32xbf16>, %bias: memref<32xf32>, %c: memref<40x32xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<40x32xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<40x64xbf16>, memref<64x32xbf16>) outs(%c : memref<40x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<32xf32>) outs(%c : memref<40x32xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// K = 128 in blocks of 64 (kc = 64 from the config): the first K block
// starts from zero and stores its tiles to C; the last loads them, stores
// to the scratch and applies the epilogue.
// CHECK-LABEL: func @k_blocks
// CHECK-SAME: %[[C:[a-z0-9]+]]: memref<32x32xf32>)
// CHECK: %[[S:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x32xf32>
// CHECK: amx.tile_zero
// CHECK: amx.tile_store %[[C]][%c0, %c0]
// CHECK-NOT: amx.tile_zero
// CHECK: amx.tile_load %[[C]][%c0, %c0]
// CHECK: amx.tile_store %[[S]]
// CHECK: linalg.generic {{.*}} outs(%[[C]] : memref<32x32xf32>)
// CHECK: return
func.func @k_blocks(%a: memref<32x128xbf16>, %b: memref<128x32xbf16>, %bias: memref<32xf32>, %c: memref<32x32xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<32x32xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x128xbf16>, memref<128x32xbf16>) outs(%c : memref<32x32xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-amx-bf16", tile = [0, 0, 64], mma = [32, 32, 32]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Not fused: C read transposed (not elementwise on C's blocks), and a bias
// written between the GEMM and its epilogue. The generics stay whole.
// CHECK-LABEL: func @transposed
// CHECK-NOT: memref<2x32x32xf32>
// CHECK: amx.tile_store %arg2
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<32x32xf32>) outs(%arg3 : memref<32x32xf32>)
func.func @transposed(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>, %c: memref<32x32xf32>, %d: memref<32x32xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x32xf32>) outs(%d : memref<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  }
  return
}

// CHECK-LABEL: func @bias_written_between
// CHECK-NOT: memref<2x32x32xf32>
// CHECK: amx.tile_store %arg3
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%arg2 : memref<32xf32>) outs(%arg3 : memref<32x32xf32>)
func.func @bias_written_between(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>, %bias: memref<32xf32>, %c: memref<32x32xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.fill ins(%one : f32) outs(%bias : memref<32xf32>)
  linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<32xf32>) outs(%c : memref<32x32xf32>) {
  ^bb0(%bv: f32, %acc: f32):
    %s = arith.addf %acc, %bv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>

// A consumer reading a boolean mask (bf16 attention's masked logits): an i1
// buffer is a byte per element, but a vector of i1 loads packed bits, so it
// stays a pass of its own and C is stored whole.
// CHECK-LABEL: func @i1_mask_stays
// CHECK-NOT: memref<2x32x32xf32>
// CHECK: amx.tile_store
// CHECK: linalg.generic {{.+}} ins(%{{.+}}, %{{.+}} : memref<64x64xf32>, memref<64x64xi1>)
func.func @i1_mask_stays(%a: memref<64x64xbf16>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>, %m: memref<64x64xi1>, %d: memref<64x64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %m : memref<64x64xf32>, memref<64x64xi1>) outs(%d : memref<64x64xf32>) {
  ^bb0(%x: f32, %k: i1, %o: f32):
    %s = arith.select %k, %x, %ninf : f32
    linalg.yield %s : f32
  }
  return
}
