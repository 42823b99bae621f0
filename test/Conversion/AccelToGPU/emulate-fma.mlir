// REQUIRES: numpy
// The FMA kernel of f32 inputs (FmaGemm.cpp: no matrix instruction, each
// thread an 8 x 8 or 4 x 4 micro tile of C by math.fma; registers -> two
// K-major shared buffers, A transposed on the way in) on the CPU
// (Inputs/emulate_kernels.py): NVIDIA (warps of 32) and AMD (waves of 64
// and 32) run the same kernel. The inputs are normal f32 with full
// significands and C is held to the f32 matmul gate (docs/numerics.md), so
// a kernel that rounds A or B to TF32 fails (the mutation at the end).
// Remainders along M, N (odd N: element stores, 1-element loads of B) and K
// (K = 6 < tileK, odd K: 1-element loads of A), B as [K, N] and [N, K]
// (transposed into shared memory), accumulate, batches, K = 0, a chain
// through an intermediate, and the three tiles (32, 64, 128). The race
// detector is on: the double buffer's one barrier per slice.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_80 --mlir-print-op-generic -o %t.sm80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm80.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_90a --mlir-print-op-generic -o %t.sm90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm90a.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx1100 --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir | FileCheck %s
// Given tiles: 32 x 32 (4 x 4 a thread, 64 threads), 128 x 64 and
// 128 x 128 (256 threads), deep and shallow slices.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_80 tile-m=32 tile-n=32 tile-k=4" --mlir-print-op-generic -o %t.small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=128 tile-n=64 tile-k=32" --mlir-print-op-generic -o %t.tall.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.tall.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx1100 tile-m=128 tile-n=128 tile-k=8" --mlir-print-op-generic -o %t.large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.large.mlir | FileCheck %s
//
// Mutations: the products of TF32 inputs (10 stored bits, what a TF32
// tensor-core kernel computes) fail the f32 gate; without the barrier that
// ends each slice the next slice overwrites a buffer still being read.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm80.mlir --tf32-fma | FileCheck %s --check-prefix=TF32
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --drop-barrier 1 | FileCheck %s --check-prefix=RACE

// CHECK: @f32_0: OK (M=100 N=72 K=64,
// CHECK: @acc_0: OK (M=33 N=18 K=40,
// CHECK: @bt_0: OK (M=40 N=36 K=48 transpose_b,
// CHECK: @odd_0: OK (M=50 N=35 K=37,
// CHECK: @k6_0: OK (M=33 N=20 K=6,
// CHECK: @kzero_0: OK (M=20 N=24 K=0,
// CHECK: @chain_0: OK (M=64 N=48 K=32,
// CHECK: @chain_1: OK (M=64 N=16 K=48,
// CHECK-NOT: FAILED
// TF32: @f32_0: FAILED: C[{{.*}} elements differ)
// RACE: @f32_0: FAILED: {{.*}}race

func.func @f32(%a: tensor<100x64xf32>, %b: tensor<64x72xf32>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x72xf32>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @acc(%a: tensor<33x40xf32>, %b: tensor<40x18xf32>, %c: tensor<33x18xf32>) -> tensor<33x18xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<33x40xf32>, tensor<40x18xf32>) outs(%c : tensor<33x18xf32>) -> tensor<33x18xf32>
  return %0 : tensor<33x18xf32>
}

func.func @bt(%a: tensor<2x40x48xf32>, %b: tensor<2x36x48xf32>, %c: tensor<2x40x36xf32>) -> tensor<2x40x36xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x40x48xf32>, tensor<2x36x48xf32>) outs(%c : tensor<2x40x36xf32>) -> tensor<2x40x36xf32>
  return %0 : tensor<2x40x36xf32>
}

func.func @odd(%a: tensor<50x37xf32>, %b: tensor<37x35xf32>) -> tensor<50x35xf32> {
  %c = tensor.empty() : tensor<50x35xf32>
  %0 = accel.matmul ins(%a, %b : tensor<50x37xf32>, tensor<37x35xf32>) outs(%c : tensor<50x35xf32>) -> tensor<50x35xf32>
  return %0 : tensor<50x35xf32>
}

func.func @k6(%a: tensor<3x33x6xf32>, %b: tensor<3x6x20xf32>) -> tensor<3x33x20xf32> {
  %c = tensor.empty() : tensor<3x33x20xf32>
  %0 = accel.matmul ins(%a, %b : tensor<3x33x6xf32>, tensor<3x6x20xf32>) outs(%c : tensor<3x33x20xf32>) -> tensor<3x33x20xf32>
  return %0 : tensor<3x33x20xf32>
}

func.func @kzero(%a: tensor<20x0xf32>, %b: tensor<0x24xf32>, %c: tensor<20x24xf32>) -> tensor<20x24xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<20x0xf32>, tensor<0x24xf32>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %0 : tensor<20x24xf32>
}

func.func @chain(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %d: tensor<48x16xf32>) -> tensor<64x16xf32> {
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %e = tensor.empty() : tensor<64x16xf32>
  %1 = accel.matmul ins(%0, %d : tensor<64x48xf32>, tensor<48x16xf32>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
