// accel-cpu-dequant-kernels replaces the generic of an accel.dequant_matmul
// (as convert-accel-to-linalg and bufferization leave it) with the kernel
// its configuration names.
// RUN: accel-opt %s -split-input-file --convert-accel-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --accel-cpu-dequant-kernels --canonicalize | FileCheck %s
// RUN: accel-opt %s -split-input-file --convert-accel-to-linalg --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --canonicalize --accel-cpu-dequant-kernels=threads=2 --canonicalize | FileCheck %s --check-prefix=THREADS

// int4 through the table (cpu-dequant-lut, 4 x 4): A converted once to f32
// with each 32-chunk reordered even-then-odd; W rows 0-7 in two 4-row
// tiles, rows 8 and 9 one by one; rows of A 0-3 in a 4-row tile, row 4
// alone; per group each weight row's table (iota - z) * s; per chunk each
// row's 16 bytes zero-extended (low nibbles) and shifted right by 4 (high
// nibbles) index the table: two vpermps, two FMAs per accumulator; the
// accumulators summed across lanes (reassociated) into C; no fill, no
// generic left.
// CHECK-LABEL: func @int4
// CHECK-NOT: linalg.fill
// CHECK: %[[IOTA:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, {{.*}}, 1.500000e+01]> : vector<16xf32>
// CHECK: %[[AF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<5x64xf32>
// CHECK: %[[AV:.*]] = vector.load %arg0[%{{.*}}, %{{.*}}] : memref<5x64xbf16>, vector<32xbf16>
// CHECK: %[[AW:.*]] = arith.extf %[[AV]] : vector<32xbf16> to vector<32xf32>
// CHECK: %[[AP:.*]] = vector.shuffle %[[AW]], %[[AW]] [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31]
// CHECK: vector.store %[[AP]], %[[AF]]
// CHECK: scf.for %[[NB:.*]] = %c0 to %c2 step %c1 {
// CHECK: %[[N0:.*]] = arith.muli %[[NB]], %c4 : index
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[S:.*]] = memref.load %arg2[%[[N0]], %{{.*}}] : memref<10x2xbf16>
// CHECK: %[[SF:.*]] = arith.extf %[[S]] : bf16 to f32
// CHECK: %[[SV:.*]] = vector.broadcast %[[SF]] : f32 to vector<16xf32>
// CHECK: %[[Z:.*]] = memref.load %arg3[%[[N0]], %{{.*}}] : memref<10x2xbf16>
// CHECK: %[[ZF:.*]] = arith.extf %[[Z]] : bf16 to f32
// CHECK: %[[ZV:.*]] = vector.broadcast %[[ZF]] : f32 to vector<16xf32>
// CHECK: %[[D:.*]] = arith.subf %[[IOTA]], %[[ZV]] : vector<16xf32>
// CHECK: %[[T:.*]] = arith.mulf %[[D]], %[[SV]] : vector<16xf32>
// CHECK: %[[A0:.*]] = vector.load %[[AF]][%c0, %[[K:.*]]] : memref<5x64xf32>, vector<16xf32>
// CHECK: %[[A1:.*]] = vector.load %[[AF]][%c0, %{{.*}}] : memref<5x64xf32>, vector<16xf32>
// CHECK: %[[BYTES:.*]] = vector.load %arg1[%[[N0]], %{{.*}}] : memref<10x32xi8>, vector<16xi8>
// CHECK: %[[LO:.*]] = arith.extui %[[BYTES]] : vector<16xi8> to vector<16xi32>
// CHECK: %[[HI:.*]] = arith.shrui %[[LO]], %{{.*}} : vector<16xi32>
// CHECK: %[[W0:.*]] = accel.x86_permute_f32 %[[T]], %[[LO]] : vector<16xf32>, vector<16xi32>
// CHECK: %[[W1:.*]] = accel.x86_permute_f32 %[[T]], %[[HI]] : vector<16xf32>, vector<16xi32>
// CHECK: %[[F0:.*]] = vector.fma %[[A0]], %[[W0]], %{{.*}} : vector<16xf32>
// CHECK: vector.fma %[[A1]], %[[W1]], %[[F0]] : vector<16xf32>
// CHECK-COUNT-15: vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: %[[R:.*]] = vector.reduction <add>, %{{.*}} fastmath<reassoc> : vector<16xf32> into f32
// CHECK: memref.store %[[R]], %arg4[%{{.*}}, %{{.*}}] : memref<5x10xf32>
// The remainder row of A against the same 4 weight rows: 4 accumulators.
// CHECK: scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// The two weight rows past the tiles, each against every row of A.
// CHECK: scf.for %[[J:.*]] = %c0 to %c2 step %c1 {
// CHECK: arith.addi %[[J]], %c8 : index
// CHECK-NOT: linalg.generic
// CHECK: return
// THREADS-LABEL: func @int4
// THREADS: scf.forall (%{{.*}}) in (2) {
// THREADS: accel.x86_permute_f32
// THREADS: return
func.func @int4(%x: tensor<5x64xbf16>, %w: tensor<10x32xi8>, %s: tensor<10x2xbf16>,
                %z: tensor<10x2xbf16>, %c: tensor<5x10xf32>) -> tensor<5x10xf32> {
  %0 = accel.dequant_matmul bits(4) group(32) unsigned
         ins(%x, %w : tensor<5x64xbf16>, tensor<10x32xi8>)
         scales(%s : tensor<10x2xbf16>) zero_points(%z : tensor<10x2xbf16>)
         outs(%c : tensor<5x10xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant-lut", mma = [4, 4, 32]>}
         -> tensor<5x10xf32>
  return %0 : tensor<5x10xf32>
}

// -----

// int8, converting (cpu-dequant, 1 x 2): no reordering of A; each chunk's
// 32 bytes as two loads of 16, sign-extended to f32, times the scale.
// CHECK-LABEL: func @int8
// CHECK-NOT: vector.shuffle
// CHECK: %[[SC:.*]] = vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK: %[[B0:.*]] = vector.load %arg1[%{{.*}}, %{{.*}}] : memref<4x64xi8>, vector<16xi8>
// CHECK: %[[B1:.*]] = vector.load %arg1[%{{.*}}, %{{.*}}] : memref<4x64xi8>, vector<16xi8>
// CHECK: %[[Q0:.*]] = arith.sitofp %[[B0]] : vector<16xi8> to vector<16xf32>
// CHECK: %[[Q1:.*]] = arith.sitofp %[[B1]] : vector<16xi8> to vector<16xf32>
// CHECK: arith.mulf %[[Q0]], %[[SC]] : vector<16xf32>
// CHECK: arith.mulf %[[Q1]], %[[SC]] : vector<16xf32>
// CHECK-NOT: accel.x86_permute_f32
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @int8(%x: tensor<1x64xf32>, %w: tensor<4x64xi8>, %s: tensor<4x1xf32>,
                %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = accel.dequant_matmul bits(8) group(64)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x64xi8>)
         scales(%s : tensor<4x1xf32>) outs(%c : tensor<1x4xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-dequant", mma = [1, 2, 32]>}
         -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// cpu-loops, or no configuration: the generic stays for the loops.
// CHECK-LABEL: func @loops
// CHECK: linalg.generic
// CHECK-SAME: accel.dequant_matmul
// CHECK-NOT: vector.fma
func.func @loops(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                 %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>)
         {accel.lowering_config = #accel.lowering_config<kernel = "cpu-loops">}
         -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
