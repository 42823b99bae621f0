// REQUIRES: numpy
// The AMD kernels (emitLds: registers -> two LDS buffers, one barrier per
// K-slice, amdgpu.mfma on wave64 / amdgpu.wmma on wave32) on the CPU
// (Inputs/emulate_kernels.py, as in emulate.mlir): the operand layouts of
// MFMA 16x16x16 f16/bf16/i8 (gfx90a), 16x16x32 i8 (gfx942) and WMMA
// 16x16x16 (gfx1100, lanes 16-31 repeating lanes 0-15) are the emulator's
// own, from the ISA documents, so a wrong fragment or accumulator index in
// the kernel shows as wrong elements of C. Remainders along M, N (odd N:
// element-by-element loads) and K, B as [K, N] (transposed into LDS) and
// [N, K], accumulate, f16 / bf16 / f32 / i32 C (i8 bit-exact, wrapping),
// batches, K = 0, a chain through an intermediate. The race detector is on
// (waves of 64 on gfx9, 32 on gfx11): the barriers of the double buffer.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx90a --mlir-print-op-generic -o %t.gfx90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx90a.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx1100 --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir | FileCheck %s
// Given tiles: 2 waves on a 16x32 tile; 1 wave; the large tiles (4 waves
// of 64, 4 and 8 of 32).
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=16 tile-n=32 tile-k=32 warps=2" --mlir-print-op-generic -o %t.942small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.942small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx1100 tile-m=16 tile-n=32 tile-k=32 warps=2" --mlir-print-op-generic -o %t.1100small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.1100small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx90a tile-m=32 tile-n=16 tile-k=64 warps=1" --mlir-print-op-generic -o %t.90aw1.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.90aw1.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=128 tile-n=128 warps=4" --mlir-print-op-generic -o %t.942large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.942large.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx1100 tile-m=128 tile-n=128 warps=4" --mlir-print-op-generic -o %t.1100large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.1100large.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=gfx1100 tile-m=128 tile-n=128 warps=8" --mlir-print-op-generic -o %t.1100w8.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.1100w8.mlir | FileCheck %s

// CHECK: @f16_0: OK (M=100 N=72 K=64,
// CHECK: @acc_0: OK (M=33 N=18 K=40,
// CHECK: @bt_0: OK (M=40 N=36 K=48 transpose_b,
// CHECK: @odd_0: OK (M=50 N=37 K=36,
// CHECK: @bf16_0: OK (M=65 N=24 K=40,
// CHECK: @k34_0: OK (M=33 N=18 K=34,
// CHECK: @i8_kn_0: OK (M=33 N=20 K=96,
// CHECK: @i8_nk_0: OK (M=20 N=37 K=100 transpose_b,
// CHECK: @kzero_0: OK (M=20 N=24 K=0,
// CHECK: @chain_0: OK (M=64 N=48 K=32,
// CHECK: @chain_1: OK (M=64 N=16 K=48,
// CHECK-NOT: FAILED

func.func @f16(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @acc(%a: tensor<33x40xf16>, %b: tensor<40x18xf16>, %c: tensor<33x18xf32>) -> tensor<33x18xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<33x40xf16>, tensor<40x18xf16>) outs(%c : tensor<33x18xf32>) -> tensor<33x18xf32>
  return %0 : tensor<33x18xf32>
}

func.func @bt(%a: tensor<2x40x48xbf16>, %b: tensor<2x36x48xbf16>, %c: tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x40x48xbf16>, tensor<2x36x48xbf16>) outs(%c : tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16>
  return %0 : tensor<2x40x36xbf16>
}

func.func @odd(%a: tensor<50x36xf16>, %b: tensor<36x37xf16>) -> tensor<50x37xf16> {
  %c = tensor.empty() : tensor<50x37xf16>
  %0 = accel.matmul ins(%a, %b : tensor<50x36xf16>, tensor<36x37xf16>) outs(%c : tensor<50x37xf16>) -> tensor<50x37xf16>
  return %0 : tensor<50x37xf16>
}

func.func @bf16(%a: tensor<65x40xbf16>, %b: tensor<40x24xbf16>) -> tensor<65x24xf32> {
  %c = tensor.empty() : tensor<65x24xf32>
  %0 = accel.matmul ins(%a, %b : tensor<65x40xbf16>, tensor<40x24xbf16>) outs(%c : tensor<65x24xf32>) -> tensor<65x24xf32>
  return %0 : tensor<65x24xf32>
}

func.func @k34(%a: tensor<3x33x34xf16>, %b: tensor<3x34x18xf16>, %c: tensor<3x33x18xf16>) -> tensor<3x33x18xf16> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<3x33x34xf16>, tensor<3x34x18xf16>) outs(%c : tensor<3x33x18xf16>) -> tensor<3x33x18xf16>
  return %0 : tensor<3x33x18xf16>
}

func.func @i8_kn(%a: tensor<33x96xi8>, %b: tensor<96x20xi8>, %c: tensor<33x20xi32>) -> tensor<33x20xi32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<33x96xi8>, tensor<96x20xi8>) outs(%c : tensor<33x20xi32>) -> tensor<33x20xi32>
  return %0 : tensor<33x20xi32>
}

func.func @i8_nk(%a: tensor<2x20x100xi8>, %b: tensor<2x37x100xi8>) -> tensor<2x20x37xi32> {
  %c = tensor.empty() : tensor<2x20x37xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<2x20x100xi8>, tensor<2x37x100xi8>) outs(%c : tensor<2x20x37xi32>) -> tensor<2x20x37xi32>
  return %0 : tensor<2x20x37xi32>
}

func.func @kzero(%a: tensor<20x0xf16>, %b: tensor<0x24xf16>, %c: tensor<20x24xf32>) -> tensor<20x24xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<20x0xf16>, tensor<0x24xf16>) outs(%c : tensor<20x24xf32>) -> tensor<20x24xf32>
  return %0 : tensor<20x24xf32>
}

func.func @chain(%a: tensor<64x32xf16>, %b: tensor<32x48xf16>, %d: tensor<48x16xf16>) -> tensor<64x16xf32> {
  %c = tensor.empty() : tensor<64x48xf16>
  %0 = accel.matmul ins(%a, %b : tensor<64x32xf16>, tensor<32x48xf16>) outs(%c : tensor<64x48xf16>) -> tensor<64x48xf16>
  %e = tensor.empty() : tensor<64x16xf32>
  %1 = accel.matmul ins(%0, %d : tensor<64x48xf16>, tensor<48x16xf16>) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
