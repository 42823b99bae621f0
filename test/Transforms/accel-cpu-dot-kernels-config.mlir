// A contraction configured by accel-cpu-configure (its accel.lowering_config,
// carried by convert-accel-to-linalg) gets the kernel and the tiles its
// config names, whatever the pass's features and options: a dot config
// becomes the dot kernel even without features, a cpu-fma one stays for
// accel-cpu-vectorize-contractions even with them.
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels))' | FileCheck %s
// RUN: accel-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(accel-cpu-dot-kernels{features=avx512f,avx512bf16 nr=64}))' | FileCheck %s

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// nr = 32: B packed in 3 panels of 32 columns (N = 70 padded to 80) x 4 k
// pairs x (32 x 2); kc = 4 (two pairs per block); mr = 4 (13 rows: 3 tiles
// of 4 and one row).
// CHECK-LABEL: func @dot_config
// CHECK: memref.alloc() {{.*}} : memref<3x4x64xbf16>
// CHECK: x86vector.avx512.dot
// CHECK-NOT: linalg.generic
func.func @dot_config(%a: memref<13x7xbf16>, %b: memref<7x70xbf16>, %c: memref<13x70xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<13x7xbf16>, memref<7x70xbf16>) outs(%c : memref<13x70xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-avx512bf16", tile = [132, 0, 4], mma = [4, 32, 2]>} {
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

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// CHECK-LABEL: func @fma_config
// CHECK-NOT: x86vector.avx512.dot
// CHECK: linalg.generic
func.func @fma_config(%a: memref<13x7xbf16>, %b: memref<7x70xbf16>, %c: memref<13x70xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<13x7xbf16>, memref<7x70xbf16>) outs(%c : memref<13x70xf32>) attrs = {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [132, 1024, 1024], mma = [6, 64, 1]>} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
