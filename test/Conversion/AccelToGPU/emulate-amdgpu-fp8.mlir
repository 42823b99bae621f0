// REQUIRES: numpy
// The fp8 kernels of gfx942 (amdgpu.mfma 16x16x32 on the FNUZ formats,
// v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}) on the CPU
// (Inputs/emulate_kernels.py, as in emulate-amdgpu.mlir): the emulator
// decodes f8E4M3FNUZ (bias 8) and f8E5M2FNUZ (bias 16; 0x80 the only NaN,
// no inf, no -0) itself, each operand by its own format, so a kernel that
// feeds the wrong operand, mixes up fp8_bf8 and bf8_fp8, or gets the K
// layout of the 16x16x32 instruction wrong (lane l holds A[l % 16][8 (l /
// 16) + i], B[8 (l / 16) + i][l % 16], i < 8) shows as wrong elements of C.
// Inputs are codes of every finite value up to 16 in magnitude (subnormals
// too, never the NaN code); C is held to the matmul gate (f32 sums). All
// four operand pairs; f32, bf16 and f16 C; B as [K, N] and [N, K]
// (transpose_b); remainders along M, N (odd N), K (K = 72: 8-byte loads; K
// = 37: element loads); accumulate; batches; K = 0. The race detector is
// on. The --self-test run checks the f8 decoding (fixed codes, and every
// code against ml_dtypes where it is installed).
// RUN: %numpy_python %S/Inputs/emulate_kernels.py --self-test | FileCheck %s --check-prefix=SELF
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.default.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.default.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=16 tile-n=32 tile-k=64 warps=2" --mlir-print-op-generic -o %t.small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=128 tile-n=128 warps=4" --mlir-print-op-generic -o %t.large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.large.mlir | FileCheck %s

// SELF: f8 codes: f8E4M3FN f8E5M2 f8E4M3FNUZ f8E5M2FNUZ ok

// CHECK: @e4m3_f32_0: OK (M=33 N=40 K=96,
// CHECK: @mixed_bf16_0: OK (M=64 N=18 K=48 transpose_b,
// CHECK: @e5m2_f16_0: OK (M=50 N=37 K=72,
// CHECK: @bf8_fp8_0: OK (M=20 N=24 K=100 transpose_b,
// CHECK: @k37_0: OK (M=33 N=20 K=37,
// CHECK: @kzero_0: OK (M=20 N=24 K=0,
// CHECK-NOT: FAILED

func.func @e4m3_f32(%a: tensor<33x96xf8E4M3FNUZ>, %b: tensor<96x40xf8E4M3FNUZ>) -> tensor<33x40xf32> {
  %c = tensor.empty() : tensor<33x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x96xf8E4M3FNUZ>, tensor<96x40xf8E4M3FNUZ>) outs(%c : tensor<33x40xf32>) -> tensor<33x40xf32>
  return %0 : tensor<33x40xf32>
}

func.func @mixed_bf16(%a: tensor<3x64x48xf8E4M3FNUZ>, %b: tensor<3x18x48xf8E5M2FNUZ>, %c: tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x64x48xf8E4M3FNUZ>, tensor<3x18x48xf8E5M2FNUZ>) outs(%c : tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16>
  return %0 : tensor<3x64x18xbf16>
}

func.func @e5m2_f16(%a: tensor<50x72xf8E5M2FNUZ>, %b: tensor<72x37xf8E5M2FNUZ>) -> tensor<50x37xf16> {
  %c = tensor.empty() : tensor<50x37xf16>
  %0 = accel.matmul ins(%a, %b : tensor<50x72xf8E5M2FNUZ>, tensor<72x37xf8E5M2FNUZ>) outs(%c : tensor<50x37xf16>) -> tensor<50x37xf16>
  return %0 : tensor<50x37xf16>
}

func.func @bf8_fp8(%a: tensor<2x20x100xf8E5M2FNUZ>, %b: tensor<2x24x100xf8E4M3FNUZ>) -> tensor<2x20x24xf32> {
  %c = tensor.empty() : tensor<2x20x24xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<2x20x100xf8E5M2FNUZ>, tensor<2x24x100xf8E4M3FNUZ>) outs(%c : tensor<2x20x24xf32>) -> tensor<2x20x24xf32>
  return %0 : tensor<2x20x24xf32>
}

func.func @k37(%a: tensor<33x37xf8E4M3FNUZ>, %b: tensor<37x20xf8E5M2FNUZ>, %c: tensor<33x20xf32>) -> tensor<33x20xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<33x37xf8E4M3FNUZ>, tensor<37x20xf8E5M2FNUZ>) outs(%c : tensor<33x20xf32>) -> tensor<33x20xf32>
  return %0 : tensor<33x20xf32>
}

func.func @kzero(%a: tensor<20x0xf8E4M3FNUZ>, %b: tensor<0x24xf8E4M3FNUZ>, %c: tensor<20x24xf32>) -> tensor<20x24xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<20x0xf8E4M3FNUZ>, tensor<0x24xf8E4M3FNUZ>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %0 : tensor<20x24xf32>
}
