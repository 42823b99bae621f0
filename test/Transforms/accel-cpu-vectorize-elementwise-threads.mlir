// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise{threads=2}))" | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise))" | FileCheck %s --check-prefix=ONE

// With threads, an op of at least 64 K elements outside any parallel loop
// runs its rows as an scf.forall, each row vectorized (16 lanes, the rest
// peeled); one thread keeps the rows sequential.
// CHECK-LABEL: func.func @large_add
// CHECK: scf.forall (%[[R:.*]]) in (256)
// CHECK: scf.for %{{.*}} = %c0 to %c512 step %c16
// CHECK: arith.addf {{.*}} : vector<1x16xf32>
// ONE-LABEL: func.func @large_add
// ONE-NOT: scf.forall
// ONE: scf.for %{{.*}} = %c0 to %c256
func.func @large_add(%a: memref<256x512xf32>, %b: memref<256x512xf32>, %o: memref<256x512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : memref<256x512xf32>, memref<256x512xf32>) outs(%o : memref<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A row reduction (a norm's sum of squares): the rows in parallel, each
// row reduced whole.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.forall (%{{.*}}) in (512)
// CHECK: vector.reduction <add>
func.func @row_sums(%a: memref<512x256xf32>, %o: memref<512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%a : memref<512x256xf32>) outs(%o : memref<512xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %sq = arith.mulf %x, %x : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Under 64 K elements (a region's start and join would cost more), and
// inside a parallel loop (attention's heads): sequential rows.
// CHECK-LABEL: func.func @small_and_nested
// CHECK: scf.forall (%{{.*}}) in (4) {
// CHECK-NOT: scf.forall
// CHECK: return
func.func @small_and_nested(%a: memref<64x64xf32>, %b: memref<4x256x512xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<64x64xf32>)
  scf.forall (%h) in (4) {
    %s = memref.subview %b[%h, 0, 0] [1, 256, 512] [1, 1, 1] : memref<4x256x512xf32> to memref<256x512xf32, strided<[512, 1], offset: ?>>
    linalg.fill ins(%c : f32) outs(%s : memref<256x512xf32, strided<[512, 1], offset: ?>>)
  }
  return
}
