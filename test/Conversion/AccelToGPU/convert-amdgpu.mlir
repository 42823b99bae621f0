// AMD kernels of convert-accel-to-gpu: the LDS kernel (register-staged
// slices, two LDS buffers, B stored [N][K]) with the chip's matrix
// instruction and lane layout. emulate-amdgpu.mlir runs them.
// RUN: accel-opt %s -split-input-file --convert-accel-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: accel-opt %s -split-input-file --convert-accel-to-gpu=chip=gfx90a | FileCheck %s --check-prefixes=CHECK,GFX90A
// RUN: accel-opt %s -split-input-file --convert-accel-to-gpu=chip=gfx1100 | FileCheck %s --check-prefixes=CHECK,GFX1100

// A 64x64x32 tile (the small default) of f16, B as [K, N] (N = 48 leaves a
// remainder in N).
// CHECK-LABEL: gpu.module @f16_kernels
// GFX942: gpu.func @f16_0(%{{.*}}: memref<64x32xf16>, %{{.*}}: memref<32x48xf16>, %{{.*}}: memref<64x48xf32>) kernel attributes {accel.launch = {access = ["in", "in", "out"], args = ["arg0", "arg1", "result0"], block = array<i64: 256, 1, 1>, chip = "gfx942", dynamic_shared_memory = 20480 : i64, grid = array<i64: 1, 1, 1>, mma = "mfma", stages = 2 : i64, tile = array<i64: 64, 64, 32>, warps = array<i64: 2, 2>}
// GFX90A: chip = "gfx90a"
// GFX90A-SAME: mma = "mfma"
// Wave32 on RDNA3: 4 waves of 32 lanes.
// GFX1100: block = array<i64: 128, 1, 1>, chip = "gfx1100"
// GFX1100-SAME: mma = "wmma"
// Two buffers of A [64][32 + 8] and of B transposed [64][32 + 8].
// CHECK: %[[LDS:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[SA:.*]] = memref.view %[[LDS]][%{{.*}}][] {{.*}} to memref<2x64x40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[SB:.*]] = memref.view %[[LDS]][%c10240][] {{.*}} to memref<2x64x40xf16, #gpu.address_space<workgroup>>
// Slice 0 from global memory (zeros outside by a select) into buffer 0; B
// [K, N] element by element, transposed.
// CHECK: %[[A0:.*]] = vector.load %arg0[{{.*}}] {alignment = 16 : i64} : memref<64x32xf16>, vector<8xf16>
// CHECK: arith.select %{{.*}}, %[[A0]], %{{.*}} : vector<8xf16>
// CHECK: %[[B0:.*]] = vector.load %arg1[{{.*}}] {alignment = 16 : i64} : memref<32x48xf16>, vector<8xf16>
// CHECK: vector.store %{{.*}}, %[[SA]][%c0, %{{.*}}, %{{.*}}] : memref<2x64x40xf16
// CHECK: memref.store %{{.*}}, %[[SB]][%c0, %[[N:.*]], %[[K:.*]]] : memref<2x64x40xf16
// CHECK: gpu.barrier
// The loop: slice kt + 1 loaded into registers, slice kt multiplied out of
// buffer kt % 2, then stored into the other buffer; one barrier.
// CHECK: scf.for %[[KT:.*]] = %c0 to %c1 step %c1 iter_args
// CHECK: vector.load %arg0
// CHECK: vector.load %arg1
// CHECK: %[[STAGE:.*]] = arith.remui %[[KT]], %c2
// GFX942: vector.load %[[SA]][%[[STAGE]], {{.*}} vector<4xf16>
// GFX942: amdgpu.mfma 16x16x16 {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// GFX90A: amdgpu.mfma 16x16x16 {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// GFX1100: vector.load %[[SA]][%[[STAGE]], {{.*}} vector<16xf16>
// GFX1100: amdgpu.wmma 16x16x16 {{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[SA]]
// CHECK: gpu.barrier
// CHECK: scf.yield
// The epilogue: element by element, guarded along N only (48 < 64).
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] : memref<64x48xf32>
// CHECK: gpu.return
func.func @f16(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>) -> tensor<64x48xf32> {
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

// -----

// i8 with an i32 C, B as [N, K]: 16x16x32 on gfx942 (8 K a lane), 16x16x16
// on gfx90a (4), all 16 K a lane on gfx1100; a 64-deep tile; bf16 in the
// same function.
// CHECK-LABEL: gpu.module @i8_kernels
// CHECK: tile = array<i64: 64, 64, 64>
// GFX942: amdgpu.mfma 16x16x32 {{.*}} : vector<8xi8>, vector<8xi8>, vector<4xi32>
// GFX90A: amdgpu.mfma 16x16x16 {{.*}} : vector<4xi8>, vector<4xi8>, vector<4xi32>
// GFX1100: amdgpu.wmma 16x16x16 {{.*}} : vector<16xi8>, vector<16xi8>, vector<8xi32>
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<64x64xi32>
// CHECK: gpu.func @i8_1
// GFX942: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// GFX90A: amdgpu.mfma 16x16x16 {{.*}} : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// GFX1100: amdgpu.wmma 16x16x16 {{.*}} : vector<16xbf16>, vector<16xbf16>, vector<8xf32>
// The f32 accumulators rounded to C's bf16.
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @i8(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>, %x: tensor<64x32xbf16>, %y: tensor<32x64xbf16>) -> (tensor<64x64xi32>, tensor<64x64xbf16>) {
  %c = tensor.empty() : tensor<64x64xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) -> tensor<64x64xi32>
  %d = tensor.empty() : tensor<64x64xbf16>
  %1 = accel.matmul ins(%x, %y : tensor<64x32xbf16>, tensor<32x64xbf16>) outs(%d : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0, %1 : tensor<64x64xi32>, tensor<64x64xbf16>
}

// -----

// The large default tile where the grid still fills the chip: 128x128 with
// 256-thread workgroups (4 waves of 64 on CDNA, 8 of 32 on RDNA3).
// CHECK-LABEL: gpu.module @large_kernels
// GFX942: block = array<i64: 256, 1, 1>, chip = "gfx942", dynamic_shared_memory = 40960 : i64, grid = array<i64: 32, 32, 1>, mma = "mfma", stages = 2 : i64, tile = array<i64: 128, 128, 32>, warps = array<i64: 2, 2>
// GFX90A: grid = array<i64: 32, 32, 1>, mma = "mfma", stages = 2 : i64, tile = array<i64: 128, 128, 32>, warps = array<i64: 2, 2>
// GFX1100: block = array<i64: 256, 1, 1>, chip = "gfx1100", dynamic_shared_memory = 40960 : i64, grid = array<i64: 32, 32, 1>, mma = "wmma", stages = 2 : i64, tile = array<i64: 128, 128, 32>, warps = array<i64: 2, 4>
func.func @large(%a: tensor<4096x256xf16>, %b: tensor<4096x256xf16>) -> tensor<4096x4096xf32> {
  %c = tensor.empty() : tensor<4096x4096xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<4096x256xf16>, tensor<4096x256xf16>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

// -----

// Attention: S^T = K.Q^T (K from LDS as the A operand, Q's fragments from
// global memory as B), the online softmax reduced over the lanes of a
// query (xor 16 and 32 on wave64, 16 on wave32), exp2 as v_exp_f32, and
// O^T = V^T.P^T with P as the B operand (on gfx1100 after a half-wave
// exchange). K [64][32 + 8] and V^T [32][64 + 8] share one LDS buffer.
// CHECK-LABEL: gpu.module @att_kernels
// GFX942: block = array<i64: 256, 1, 1>, chip = "gfx942", dynamic_shared_memory = 9728 : i64, grid = array<i64: 1, 2, 1>, kind = "attention"
// GFX1100: block = array<i64: 128, 1, 1>, chip = "gfx1100", dynamic_shared_memory = 9728 : i64, grid = array<i64: 1, 2, 1>, kind = "attention"
// CHECK: %[[SK:.*]] = memref.view %{{.*}}[%c0][] {{.*}} to memref<64x40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[SV:.*]] = memref.view %{{.*}}[%c5120][] {{.*}} to memref<32x72xf16, #gpu.address_space<workgroup>>
// GFX942: %[[Q0:.*]] = vector.load %arg0[{{.*}}] {alignment = 8 : i64} : memref<1x2x64x32xf16>, vector<4xf16>
// GFX1100: %[[Q0:.*]] = vector.load %arg0[{{.*}}] {alignment = 32 : i64} : memref<1x2x64x32xf16>, vector<16xf16>
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: vector.store %{{.*}}, %[[SK]]
// CHECK: memref.store %{{.*}}, %[[SV]]
// CHECK: gpu.barrier
// CHECK: %[[KF:.*]] = vector.load %[[SK]]
// GFX942: amdgpu.mfma 16x16x16 %[[KF]] * %[[Q0]] + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// GFX1100: amdgpu.wmma 16x16x16 %[[KF]] * %[[Q0]] + %{{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// GFX942: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c64_i32
// GFX942: gpu.shuffle  xor %{{.*}}, %c32_i32{{.*}}, %c64_i32
// GFX1100: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32
// CHECK: llvm.call_intrinsic "llvm.amdgcn.exp2"
// GFX1100: gpu.shuffle  xor %{{.*}}, %c16_i32{{.*}}, %c32_i32
// CHECK: %[[P:.*]] = arith.truncf %{{.*}} : vector<{{4|16}}xf32> to vector<{{4|16}}xf16>
// CHECK: %[[VF:.*]] = vector.load %[[SV]]
// GFX942: amdgpu.mfma 16x16x16 %[[VF]] * %[[P]] + %{{.*}} blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// GFX1100: amdgpu.wmma 16x16x16 %[[VF]] * %[[P]] + %{{.*}} : vector<16xf16>, vector<16xf16>, vector<8xf32>
// CHECK: scf.yield
// O / l: 4 consecutive columns a vector store (MFMA), every other column
// element by element (WMMA).
// GFX942: vector.store %{{.*}}, %arg3[{{.*}}] {alignment = 16 : i64} : memref<1x2x64x32xf32>, vector<4xf32>
// GFX1100: memref.store %{{.*}}, %arg3[{{.*}}] : memref<1x2x64x32xf32>
func.func @att(%q: tensor<1x2x64x32xf16>, %k: tensor<1x2x64x32xf16>, %v: tensor<1x2x64x32xf16>) -> tensor<1x2x64x32xf32> {
  %o = tensor.empty() : tensor<1x2x64x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>, tensor<1x2x64x32xf16>) outs(%o : tensor<1x2x64x32xf32>) -> tensor<1x2x64x32xf32>
  return %0 : tensor<1x2x64x32xf32>
}
