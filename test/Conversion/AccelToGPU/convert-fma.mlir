// The fma kernel of f32 inputs (FmaGemm.cpp), on both vendors: its launch,
// the two K-major shared buffers (A transposed element by element, B as
// [K, N] stored as vectors), the not-unrolled K loop with the 64
// accumulators of an 8 x 8 micro tile, 16-byte reads of shared memory, 64
// math.fma per K (512 for a slice of 8), one barrier per slice, and the
// stores of 4 columns as one vector inside the guard of the ragged M and N.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_80 | FileCheck %s --check-prefixes=CHECK,NV
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 | FileCheck %s --check-prefixes=CHECK,AMD
// The configuration: 128 x 128 by 256 threads once the grid fills the chip.
// RUN: accel-opt %s --accel-gpu-configure=chip=sm_90a | FileCheck %s --check-prefix=CONFIG

// CHECK: #loop_annotation = #llvm.loop_annotation<unroll = #loop_unroll>
// CHECK-LABEL: gpu.func @mm_0(
// CHECK-SAME: %[[A:.*]]: memref<100x64xf32>, %[[B:.*]]: memref<64x72xf32>, %[[C:.*]]: memref<100x72xf32>)
// NV-SAME: block = array<i64: 64, 1, 1>, chip = "sm_80", dynamic_shared_memory = 8704 : i64, grid = array<i64: 2, 2, 1>, mma = "fma", stages = 2 : i64, tile = array<i64: 64, 64, 8>, warps = array<i64: 2, 1>
// AMD-SAME: block = array<i64: 64, 1, 1>, chip = "gfx942", dynamic_shared_memory = 8704 : i64, grid = array<i64: 2, 2, 1>, mma = "fma", stages = 2 : i64, tile = array<i64: 64, 64, 8>, warps = array<i64: 1, 1>
// CHECK: %[[SA:.*]] = memref.view {{.*}} to memref<2x8x68xf32, #gpu.address_space<workgroup>>
// CHECK: %[[SB:.*]] = memref.view {{.*}} to memref<2x8x68xf32, #gpu.address_space<workgroup>>
// CHECK: vector.load %[[A]][{{.*}}] {alignment = 16 : i64} : memref<100x64xf32>, vector<4xf32>
// CHECK: vector.load %[[B]][{{.*}}] {alignment = 16 : i64} : memref<64x72xf32>, vector<4xf32>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[SA]][%c0, %{{.*}}, %{{.*}}] : memref<2x8x68xf32
// CHECK-COUNT-2: vector.store %{{.*}}, %[[SB]][%c0, %{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[ACC:.*]]:64 = scf.for
// CHECK: vector.load %[[SA]][%{{.*}}, %c0, %{{.*}}] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CHECK: vector.load %[[SB]][%{{.*}}, %c0, %{{.*}}] {alignment = 16 : i64} : {{.*}}, vector<4xf32>
// CHECK-COUNT-512: math.fma
// CHECK-NOT: math.fma
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {loop_annotation = #loop_annotation}
// CHECK: scf.if
// CHECK: %[[V:.*]] = vector.from_elements %[[ACC]]#0, %[[ACC]]#1, %[[ACC]]#2, %[[ACC]]#3 : vector<4xf32>
// CHECK-NEXT: vector.store %[[V]], %[[C]][{{.*}}] {alignment = 16 : i64} : memref<100x72xf32>, vector<4xf32>
// CHECK-COUNT-15: vector.store {{.*}}, %[[C]]
// CHECK-NOT: vector.store {{.*}}, %[[C]]
// CHECK: gpu.return

// CONFIG: #accel.lowering_config<kernel = "fma", tile = [64, 64, 8], warps = [2, 1], mma = [8, 8, 1], stages = 2>
// CONFIG: #accel.lowering_config<kernel = "fma", tile = [128, 128, 8], warps = [8, 1], mma = [8, 8, 1], stages = 2>
// CONFIG: #accel.lowering_config<kernel = "fma", tile = [32, 32, 8], warps = [2, 1], mma = [4, 4, 1], stages = 2>

func.func @mm(%a: tensor<100x64xf32>, %b: tensor<64x72xf32>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x72xf32>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @large(%a: tensor<4096x1024xf32>, %b: tensor<1024x4096xf32>) -> tensor<4096x4096xf32> {
  %c = tensor.empty() : tensor<4096x4096xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4096x1024xf32>, tensor<1024x4096xf32>) outs(%c : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %0 : tensor<4096x4096xf32>
}

func.func @small(%a: tensor<20x16xf32>, %b: tensor<16x24xf32>) -> tensor<20x24xf32> {
  %c = tensor.empty() : tensor<20x24xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x16xf32>, tensor<16x24xf32>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %0 : tensor<20x24xf32>
}
