// Hand-written #accel.lowering_config on the CPU: the configuration stage
// completes them, the lowering obeys them, and the results stay within the
// fp64 oracle's gate (NaN-prefilled outputs; sizes that leave partial cache,
// register and attention tiles).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// The configs reach the passes that lower the ops: the matmul's register
// tile (4 x 32: 4 rows of 32-lane FMAs), its cache tile (40 x 96 x 72), the
// attention's blocks (24 query rows, 40 keys).
// RUN: accel-opt %s --pass-pipeline="builtin.module(accel-cpu-configure,convert-accel-to-linalg,one-shot-bufferize{bufferize-function-boundaries},func.func(accel-cpu-vectorize-contractions{pack-rhs=0 prefetch-c=0}))" | FileCheck %s --check-prefix=TILES
// RUN: accel-opt %s --accel-cpu-configure --accel-decompose-attention | FileCheck %s --check-prefix=ATT
// A contraction no accel op configured takes the stage's choice for the
// features: 6 x 16 without AVX-512.
// RUN: accel-opt %s --pass-pipeline="builtin.module(convert-accel-to-linalg,one-shot-bufferize{bufferize-function-boundaries},func.func(accel-cpu-vectorize-contractions{features=avx2,fma pack-rhs=0 prefetch-c=0}))" | FileCheck %s --check-prefix=AVX2
// AVX2-LABEL: func @mm_default
// AVX2: -> (vector<6x16xf32>)
// AVX2-NOT: vector<6x64xf32>

// CHECK-LABEL: @mm_config
// CHECK: PASS
// TILES-LABEL: func @mm_config
// TILES: scf.for {{.*}} step %c40
// TILES: scf.for {{.*}} step %c32
// TILES: scf.for {{.*}} step %c4
// TILES: scf.for {{.*}} to %c72 step %c1 iter_args({{.*}}) -> (vector<4x32xf32>)
// TILES: vector.fma {{.*}} : vector<32xf32>
// TILES-NOT: vector<64xf32>
// TILES-LABEL: func @mm_default
// TILES: vector<64xf32>
func.func @mm_config(%a: tensor<101x150xf32>, %b: tensor<150x77xf32>) -> tensor<101x77xf32> {
  %c = tensor.empty() : tensor<101x77xf32>
  %0 = accel.matmul ins(%a, %b : tensor<101x150xf32>, tensor<150x77xf32>) outs(%c : tensor<101x77xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-fma", tile = [40, 96, 72], mma = [4, 32, 1]>} -> tensor<101x77xf32>
  return %0 : tensor<101x77xf32>
}

// CHECK-LABEL: @mm_default
// CHECK: PASS
func.func @mm_default(%a: tensor<101x150xf32>, %b: tensor<150x77xf32>) -> tensor<101x77xf32> {
  %c = tensor.empty() : tensor<101x77xf32>
  %0 = accel.matmul ins(%a, %b : tensor<101x150xf32>, tensor<150x77xf32>) outs(%c : tensor<101x77xf32>) -> tensor<101x77xf32>
  return %0 : tensor<101x77xf32>
}

// CHECK-LABEL: @att_config
// CHECK: PASS
// ATT-LABEL: func @att_config
// 70 queries: 2 tiles of 24 and 22; 90 keys: 2 tiles of 40 and 10 (Kᵀ as
// [B, Hkv, tiles, D, 40]).
// ATT: tensor<1x2x2x32x40xf32>
// ATT: tensor<24x40xf32>
// ATT: tensor<24x10xf32>
// ATT: tensor<22x40xf32>
func.func @att_config(%q: tensor<1x2x70x32xf32>, %k: tensor<1x2x90x32xf32>, %v: tensor<1x2x90x32xf32>) -> tensor<1x2x70x32xf32> {
  %o = tensor.empty() : tensor<1x2x70x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x70x32xf32>, tensor<1x2x90x32xf32>, tensor<1x2x90x32xf32>) outs(%o : tensor<1x2x70x32xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [24, 40]>} -> tensor<1x2x70x32xf32>
  return %0 : tensor<1x2x70x32xf32>
}
