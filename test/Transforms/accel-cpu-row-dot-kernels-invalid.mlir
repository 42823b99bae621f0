// RUN: accel-opt %s -split-input-file --accel-cpu-row-dot-kernels -verify-diagnostics
// Without AVX-512 a vector of 16 f32 takes two of the 16 ymm:
// RUN: not accel-opt %s -split-input-file --accel-cpu-row-dot-kernels="features=avx2,fma" 2>&1 | FileCheck %s --check-prefix=AVX2
// AVX2: error: 'linalg.matmul' op accel-cpu-row-dot-kernels: mr x nr = 4 x 4 needs 21 vectors of 16 f32; without AVX-512 there are 8 (16 ymm)

// A hand-written cpu-row-dot config on the contraction that the kernel
// cannot take: a located error, not another kernel.

func.func @no_mma(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  // expected-error @+1 {{accel-cpu-row-dot-kernels: cpu-row-dot takes an mma [mr, nr, 16]}}
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot">} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}

// -----

func.func @registers(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  // expected-error @+1 {{accel-cpu-row-dot-kernels: mr x nr = 6 x 5 needs 37 vectors of 16 f32; AVX-512 has 32}}
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [6, 5, 16]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}

// -----

func.func @mma_k(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  // expected-error @+1 {{accel-cpu-row-dot-kernels: cpu-row-dot takes an mma [mr, nr, 16] and a tile [0, 0, Kc] or none}}
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [4, 4, 8]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}

// -----

func.func @tile_m(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  // expected-error @+1 {{accel-cpu-row-dot-kernels: cpu-row-dot takes an mma [mr, nr, 16] and a tile [0, 0, Kc] or none}}
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", tile = [4, 0, 32], mma = [4, 4, 16]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}

// -----

func.func @avx2_registers(%a: memref<2x32xf32>, %w: memref<8x32xf32>, %c: memref<2x8xf32>) {
  %t = memref.alloc() {alignment = 64 : i64} : memref<32x8xf32>
  linalg.transpose ins(%w : memref<8x32xf32>) outs(%t : memref<32x8xf32>) permutation = [1, 0]
  // 4 x 4 fits AVX-512's 32 vectors (no error here); not AVX2's 8.
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [4, 4, 16]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}
