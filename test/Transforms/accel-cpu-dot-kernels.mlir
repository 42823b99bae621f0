// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni kc=4}),canonicalize)' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f}))' | FileCheck %s --check-prefix=NOBF16
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels))' | FileCheck %s --check-prefix=TARGET
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512bf16 threads=2}))' | FileCheck %s --check-prefix=THREADS
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512vnni kc=8}))' | FileCheck %s --check-prefix=FILL
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512vnni kc=8 prefetch-c=0}))' | FileCheck %s --check-prefix=NOPREFETCH
// bf16-subnormals=keep: bf16 stays on the f32 path (vdpbf16ps flushes
// subnormals), int8's VNNI kernels are unaffected.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16,avx512vnni bf16-subnormals=keep}))' | FileCheck %s --check-prefix=KEEP
// M blocks of mc = 6 rows: rows 0-11 as an scf.for over two blocks, each
// running every column tile (and the ragged columns) before the next block,
// then row 12 on its own.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16 mc=6}),canonicalize)' | FileCheck %s --check-prefix=MBLOCK

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// M = 13 (two 6-row tiles and one row), N = 70 (one 64-column tile, then 6
// columns masked), K = 7 (three pairs and a half pair), kc = 4 (blocks of
// two pairs). B is packed in panels of 64 columns, [2, 4, 64 x 2]: rows 2kk
// and 2kk+1 interleaved 16 columns at a time, the ragged columns and the odd
// row one by one (zeros past N and K); column n's pairs are in panel n / 64
// at (n mod 64) x 2, so a column tile reads its panel sequentially.
// MBLOCK-LABEL: func @gemm
// MBLOCK: memref.alloc() {{.*}} : memref<2x4x128xbf16>
// MBLOCK: scf.for %[[MB:.+]] = %c0 to %c12 step %c6 {
// MBLOCK: vector.load %arg0[%[[MB]], %{{.+}}] : memref<13x7xbf16>, vector<2xbf16>
// MBLOCK: vector.store %{{.+}}, %arg2[%[[MB]], %c0] : memref<13x70xf32>
// MBLOCK: vector.maskedstore %arg2[%[[MB]], %c64]
// MBLOCK: }
// MBLOCK: vector.load %arg2[%c12, %c0] : memref<13x70xf32>
// MBLOCK: vector.load %arg0[%c12, %{{.+}}] : memref<13x7xbf16>, vector<2xbf16>
// MBLOCK: vector.store %{{.+}}, %arg2[%c12, %c0] : memref<13x70xf32>
// MBLOCK: vector.maskedstore %arg2[%c12, %c64]
// CHECK-LABEL: func @gemm
// CHECK-SAME: (%[[A:.+]]: memref<13x7xbf16>, %[[B:.+]]: memref<7x70xbf16>, %[[C:.+]]: memref<13x70xf32>)
// CHECK: %[[BP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x4x128xbf16>
// CHECK: scf.for %[[KK:.+]] = %c0 to %c3 step %c1
// CHECK: scf.for %[[N:.+]] = %c0 to %c64 step %c16
// CHECK: %[[R0:.+]] = vector.load %[[B]][%{{.+}}, %[[N]]] : memref<7x70xbf16>, vector<16xbf16>
// CHECK: %[[R1:.+]] = vector.load %[[B]][%{{.+}}, %[[N]]] : memref<7x70xbf16>, vector<16xbf16>
// CHECK: %[[IL:.+]] = vector.interleave %[[R0]], %[[R1]] : vector<16xbf16> -> vector<32xbf16>
// CHECK: %[[PN:.+]] = arith.divui %[[N]], %c64
// CHECK: %[[WN:.+]] = arith.remui %[[N]], %c64
// CHECK: %[[AT:.+]] = arith.muli %[[WN]], %c2
// CHECK: vector.store %[[IL]], %[[BP]][%[[PN]], %[[KK]], %[[AT]]]
// CHECK: scf.for %{{.+}} = %c64 to %c80 step %c1
// CHECK: memref.store %{{.+}}, %[[BP]][%{{.+}}, %c3, %{{.+}}]
// K blocks of two pairs; rows in tiles of 6, 4 groups of 16 columns.
// CHECK: scf.for %[[KB:.+]] = %c0 to %c3 step %c2
// CHECK: %[[KE:.+]] = arith.minsi %{{.+}}, %c3
// CHECK: %[[LAST:.+]] = arith.cmpi sge, %{{.+}}, %c3
// CHECK: scf.for %[[M0:.+]] = %c0 to %c12 step %c6
// CHECK: scf.if %[[LAST]]
// CHECK-COUNT-24: vector.load %[[C]]
// CHECK: scf.for %[[P:.+]] = %[[KB]] to %[[KE]] step %c1 iter_args(
// CHECK-COUNT-4: vector.load %[[BP]][%{{.+}}, %[[P]], %{{.+}}] : memref<2x4x128xbf16>, vector<32xbf16>
// CHECK: %[[PAIR:.+]] = vector.load %[[A]][%[[M0]], %{{.+}}] : memref<13x7xbf16>, vector<2xbf16>
// CHECK: %[[WORD:.+]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[S:.+]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK: %[[SPLAT:.+]] = vector.broadcast %[[S]] : i32 to vector<16xi32>
// CHECK: %[[AP:.+]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK: x86vector.avx512.dot %{{.+}}, %[[AP]], %{{.+}} : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-23: x86vector.avx512.dot
// The odd K's last column pairs with a zero.
// CHECK: %[[AK:.+]] = memref.load %[[A]][%[[M0]], %c6]
// CHECK: vector.insert %[[AK]], %cst{{.*}} [0] : bf16 into vector<2xbf16>
// CHECK-COUNT-24: x86vector.avx512.dot
// CHECK-COUNT-24: vector.store %{{.+}}, %[[C]]
// The ragged columns: one 16-column group with the last 6 masked.
// CHECK: vector.constant_mask [6] : vector<16xi1>
// CHECK: vector.maskedload %[[C]]
// CHECK: vector.maskedstore %[[C]]
// CHECK-NOT: linalg.generic
// With threads, the whole 64-column tiles are tasks of an scf.forall; the
// ragged columns follow.
// THREADS-LABEL: func @gemm
// THREADS: scf.forall (%[[T:.+]]) in (1)
// THREADS: arith.muli %[[T]], %c64
// THREADS: x86vector.avx512.dot
// THREADS: vector.maskedstore
// NOBF16-LABEL: func @gemm
// NOBF16: linalg.generic
// NOBF16-NOT: x86vector
// KEEP-LABEL: func @gemm
// KEEP: linalg.generic
// KEEP-NOT: x86vector
func.func @gemm(%a: memref<13x7xbf16>, %b: memref<7x70xbf16>, %c: memref<13x70xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<13x7xbf16>, memref<7x70xbf16>) outs(%c : memref<13x70xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Left to the generic path: f32 inputs, B transposed, a bf16 accumulator,
// a subtraction instead of the multiply-add, dynamic sizes.
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func @not_matched
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: x86vector
func.func @not_matched(%af: memref<8x8xf32>, %bf: memref<8x8xf32>, %cf: memref<8x8xf32>,
                       %a: memref<8x8xbf16>, %b: memref<8x8xbf16>, %c: memref<8x8xf32>,
                       %cb: memref<8x8xbf16>, %ad: memref<?x8xbf16>, %cd: memref<?x8xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%af, %bf : memref<8x8xf32>, memref<8x8xf32>) outs(%cf : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %2 = arith.mulf %x, %y : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x8xbf16>, memref<8x8xbf16>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x8xbf16>, memref<8x8xbf16>) outs(%cb : memref<8x8xbf16>) {
  ^bb0(%x: bf16, %y: bf16, %acc: bf16):
    %2 = arith.mulf %x, %y : bf16
    %3 = arith.addf %acc, %2 : bf16
    linalg.yield %3 : bf16
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x8xbf16>, memref<8x8xbf16>) outs(%c : memref<8x8xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.subf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%ad, %b : memref<?x8xbf16>, memref<8x8xbf16>) outs(%cd : memref<?x8xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// The module's accel.target decides when no features are given.
// TARGET-LABEL: func @gemm
// TARGET: linalg.generic
// CHECK-LABEL: func @from_target
// TARGET-LABEL: func @from_target
// TARGET: x86vector.avx512.dot
// TARGET-NOT: linalg.generic
module attributes {accel.target = #accel.target<name = "t", kind = cpu, chip = "znver5", features = ["avx512f", "avx512bf16"], compute_units = 1, clock_ghz = 3.0, peak_f32 = 0.2, peak_tf32 = 0.0, peak_f16 = 0.0, peak_bf16 = 0.4, peak_f8 = 0.0, peak_i8 = 0.8, memory_gib = 24.0, memory_gbps = 36.0, local_memory_kib = 48, l2_kib = 1024, llc_kib = 32768, matrix_unit = [1, 16, 1], warp_size = 0>} {
  func.func @from_target(%a: memref<8x8xbf16>, %b: memref<8x8xbf16>, %c: memref<8x8xf32>) {
    linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<8x8xbf16>, memref<8x8xbf16>) outs(%c : memref<8x8xf32>) {
    ^bb0(%x: bf16, %y: bf16, %acc: f32):
      %0 = arith.extf %x : bf16 to f32
      %1 = arith.extf %y : bf16 to f32
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %acc, %2 : f32
      linalg.yield %3 : f32
    }
    return
  }
}

// -----

// i8 x i8 -> i32 with avx512vnni: four rows of B interleaved per 32-bit
// lane (two byte interleaves, then one of 16-bit units); the C tiles get
// -128 x the column sums of B (A enters vpdpbusd as unsigned through a copy
// A' = a xor 0x80 = a + 128, its K padded to whole groups of four, so the
// kernel broadcasts each group straight from memory); K = 7 is one whole
// group and a partial one.
// CHECK-LABEL: func @gemm_i8
// CHECK-SAME: (%[[A:.+]]: memref<13x7xi8>, %[[B:.+]]: memref<7x70xi8>, %[[C:.+]]: memref<13x70xi32>)
// CHECK: %[[BP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<2x2x256xi8>
// CHECK: %[[P01:.+]] = vector.interleave %{{.+}}, %{{.+}} : vector<16xi8> -> vector<32xi8>
// CHECK: %[[P23:.+]] = vector.interleave %{{.+}}, %{{.+}} : vector<16xi8> -> vector<32xi8>
// CHECK: %[[U01:.+]] = vector.bitcast %[[P01]] : vector<32xi8> to vector<16xi16>
// CHECK: %[[U23:.+]] = vector.bitcast %[[P23]] : vector<32xi8> to vector<16xi16>
// CHECK: %[[Q:.+]] = vector.interleave %[[U01]], %[[U23]] : vector<16xi16> -> vector<32xi16>
// CHECK: %[[QB:.+]] = vector.bitcast %[[Q]] : vector<32xi16> to vector<64xi8>
// CHECK: vector.store %[[QB]], %[[BP]]
// A' = A xor 0x80, K padded to 8 (K < 64: byte by byte here).
// CHECK: %[[AP:.+]] = memref.alloc() {alignment = 64 : i64} : memref<13x8xi8>
// CHECK: arith.cmpi slt, %{{.+}}, %c7
// CHECK: %[[AV:.+]] = memref.load %[[A]]
// CHECK: arith.xori %[[AV]], %c-128_i8 : i8
// CHECK: memref.store %{{.+}}, %[[AP]]
// B's column sums from the packed panels (zeros past N and K): per 16
// columns the groups' 64 bytes widened and added, then each column's 4
// lanes.
// CHECK: %[[SUMS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<80xi32>
// CHECK: vector.load %[[BP]][{{.*}}] : memref<{{.*}}xi8>, vector<64xi8>
// CHECK: arith.extsi %{{.+}} : vector<64xi8> to vector<64xi32>
// CHECK: vector.shuffle {{.*}} [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60] : vector<64xi32>, vector<64xi32>
// CHECK: arith.muli %{{.+}}, %cst{{.*}} : vector<16xi32>
// CHECK: vector.store %{{.+}}, %[[SUMS]]
// The first K block (here the only one) adds the sums to the C tile it
// loads (an arith.select on kb == 0 when there are more blocks).
// CHECK: %[[CV:.+]] = vector.load %[[C]][%{{.+}}, %c0]
// CHECK: %[[SV:.+]] = vector.load %[[SUMS]][%c0]
// CHECK: arith.addi %[[CV]], %[[SV]] : vector<16xi32>
// CHECK: vector.load %[[AP]][%{{.+}}, %{{.+}}] : memref<13x8xi8>, vector<4xi8>
// CHECK: %[[W:.+]] = vector.bitcast %{{.+}} : vector<4xi8> to vector<1xi32>
// CHECK: %[[WS:.+]] = vector.extract %[[W]][0] : i32 from vector<1xi32>
// CHECK: %[[SPL:.+]] = vector.broadcast %[[WS]] : i32 to vector<16xi32>
// CHECK: %[[AB:.+]] = vector.bitcast %[[SPL]] : vector<16xi32> to vector<64xi8>
// CHECK: accel.x86_dot_u8s8 %{{.+}}, %[[AB]], %{{.+}} : vector<64xi8> -> vector<16xi32>
// NOBF16-LABEL: func @gemm_i8
// NOBF16: linalg.generic
// KEEP-LABEL: func @gemm_i8
// KEEP: accel.x86_dot_u8s8
// TARGET-LABEL: func @gemm_i8
// TARGET: linalg.generic
func.func @gemm_i8(%a: memref<13x7xi8>, %b: memref<7x70xi8>, %c: memref<13x70xi32>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<13x7xi8>, memref<7x70xi8>) outs(%c : memref<13x70xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %acc, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// C = 0; C += A B: the first K block's accumulators start from the fill
// value (no load of C; the i8 offset correction added to it), the later K
// blocks load C, and the fill of C is gone. Before each full row tile's K
// loop, write prefetches of the next row tile's C lines (one per 16
// columns), the rows clamped to C's last.
// FILL-LABEL: func @gemm_i8_from_fill
// FILL-SAME: %[[C:[^:]+]]: memref<13x64xi32>)
// FILL-NOT: linalg.fill
// FILL: %[[ZERO:.+]] = vector.broadcast %{{.+}} : i32 to vector<16xi32>
// FILL-NOT: vector.load %[[C]]
// FILL: %[[SUMS:.+]] = vector.load %{{.+}} : memref<64xi32>, vector<16xi32>
// FILL: arith.addi %[[ZERO]], %[[SUMS]] : vector<16xi32>
// FILL-NOT: vector.load %[[C]]
// FILL: %[[ROW:.+]] = arith.minsi %{{.+}}, %c12{{[_0-9]*}} : index
// FILL: memref.prefetch %[[C]][%[[ROW]], %{{.+}}], write, locality<3>, data
// FILL-NOT: vector.load %[[C]]
// FILL: scf.for %{{.+}} = %c2{{[_0-9]*}} to %c4{{[_0-9]*}} step %c2{{[_0-9]*}}
// FILL: vector.load %[[C]]
// FILL: return
// NOPREFETCH-LABEL: func @gemm_i8_from_fill
// NOPREFETCH-NOT: memref.prefetch
// NOPREFETCH: return
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @gemm_i8_from_fill(%a: memref<13x16xi8>, %b: memref<16x64xi8>, %c: memref<13x64xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<13x64xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<13x16xi8>, memref<16x64xi8>) outs(%c : memref<13x64xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extsi %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
