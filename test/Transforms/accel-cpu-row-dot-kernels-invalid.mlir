// RUN: accel-opt %s -split-input-file --accel-cpu-row-dot-kernels -verify-diagnostics

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
  // expected-error @+1 {{accel-cpu-row-dot-kernels: mr x nr = 6 x 5 needs 37 vector registers; AVX-512 has 32}}
  linalg.matmul {accel.lowering_config = #accel.lowering_config<kernel = "cpu-row-dot", mma = [6, 5, 16]>} ins(%a, %t : memref<2x32xf32>, memref<32x8xf32>) outs(%c : memref<2x8xf32>)
  return
}
