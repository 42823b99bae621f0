// RUN: accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16 mr=64 nr=64}))' -verify-diagnostics
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16 kc=48}))' 2>&1 | FileCheck %s --check-prefix=KC
// KC: error: accel-cpu-amx-kernels: mr and nr must be positive multiples of 16 (one tile's rows and columns), mc >= 0 and kc a positive multiple of 32 (got mr=32 nr=32 mc=256 kc=48)
// RUN: not accel-opt %s --pass-pipeline='builtin.module(func.func(accel-cpu-amx-kernels{features=amx-tile,amx-bf16 bf16-subnormals=daz}))' 2>&1 | FileCheck %s --check-prefix=SUBNORMALS
// SUBNORMALS: accel-cpu-amx-kernels-invalid.mlir:{{[0-9]+}}:1: error: accel-cpu-amx-kernels: bf16-subnormals must be 'flush' or 'keep' (got 'daz')

#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>

// Tile options apply to the contractions the pass chooses for.
// expected-error @+1 {{accel-cpu-amx-kernels: mr x nr = 64 x 64 needs 24 tile registers (C, A and B tiles); AMX has 8}}
func.func @gemm(%a: memref<32x64xbf16>, %b: memref<64x32xbf16>, %c: memref<32x32xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<32x64xbf16>, memref<64x32xbf16>) outs(%c : memref<32x32xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xe = arith.extf %x : bf16 to f32
    %ye = arith.extf %y : bf16 to f32
    %p = arith.mulf %xe, %ye : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
