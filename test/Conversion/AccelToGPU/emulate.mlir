// REQUIRES: numpy
// Runs the kernels on the CPU (Inputs/emulate_kernels.py: every block, its
// threads in lockstep, cp.async landing only at the waits, ldmatrix and
// mma.sync fragments as the PTX ISA lays them out) and compares C with
// numpy. No GPU is involved: this checks the index arithmetic, the ring of
// stages and the remainder handling, not the hardware; the emulator's race
// detector (on by default, emulate-races.mlir) checks the barriers and
// waits of the ring.
// RUN: accel-opt %s --convert-accel-to-gpu --mlir-print-op-generic -o %t.default.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.default.mlir | FileCheck %s
// 4 stages; a tile with fewer copies per slice than threads; 1 warp; the
// 128x128 tile with 8 warps.
// RUN: accel-opt %s --convert-accel-to-gpu="stages=4" --mlir-print-op-generic -o %t.s4.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.s4.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="tile-m=16 tile-n=32 tile-k=16 warps=2" --mlir-print-op-generic -o %t.small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="tile-m=32 tile-n=16 tile-k=64 warps=1 stages=2" --mlir-print-op-generic -o %t.w1.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.w1.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="tile-m=128 tile-n=128 warps=8" --mlir-print-op-generic -o %t.large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.large.mlir | FileCheck %s

// CHECK: @f16_0: OK (M=100 N=72 K=64,
// CHECK: @bf16_0: OK (M=257 N=136 K=40,
// CHECK: @bt_0: OK (M=40 N=36 K=48 transpose_b,
// CHECK: @odd_0: OK (M=50 N=37 K=36 transpose_b,
// CHECK: @k34_0: OK (M=33 N=18 K=34,
// CHECK: @kzero_0: OK (M=20 N=24 K=0,
// CHECK: @chain_0: OK (M=64 N=48 K=32,
// CHECK: @chain_1: OK (M=64 N=16 K=48,
// CHECK-NOT: FAILED

func.func @f16(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @bf16(%a: tensor<257x40xbf16>, %b: tensor<40x136xbf16>) -> tensor<257x136xf32> {
  %c = tensor.empty() : tensor<257x136xf32>
  %0 = accel.matmul ins(%a, %b : tensor<257x40xbf16>, tensor<40x136xbf16>) outs(%c : tensor<257x136xf32>) -> tensor<257x136xf32>
  return %0 : tensor<257x136xf32>
}

func.func @bt(%a: tensor<2x40x48xbf16>, %b: tensor<2x36x48xbf16>, %c: tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x40x48xbf16>, tensor<2x36x48xbf16>) outs(%c : tensor<2x40x36xbf16>) -> tensor<2x40x36xbf16>
  return %0 : tensor<2x40x36xbf16>
}

func.func @odd(%a: tensor<50x36xf16>, %b: tensor<37x36xf16>, %c: tensor<50x37xf32>) -> tensor<50x37xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<50x36xf16>, tensor<37x36xf16>) outs(%c : tensor<50x37xf32>) -> tensor<50x37xf32>
  return %0 : tensor<50x37xf32>
}

func.func @k34(%a: tensor<3x33x34xf16>, %b: tensor<3x34x18xf16>, %c: tensor<3x33x18xf16>) -> tensor<3x33x18xf16> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<3x33x34xf16>, tensor<3x34x18xf16>) outs(%c : tensor<3x33x18xf16>) -> tensor<3x33x18xf16>
  return %0 : tensor<3x33x18xf16>
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
