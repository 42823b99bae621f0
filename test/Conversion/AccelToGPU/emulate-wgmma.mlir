// REQUIRES: numpy
// Runs the wgmma GEMM kernels of convert-accel-to-gpu (chip=sm_90a
// mma=wgmma) on the CPU (Inputs/emulate_kernels.py: cp.async into the
// 128-byte swizzle, the wgmma descriptors decoded by the PTX ISA's
// canonical layouts with the swizzle on the absolute shared address, from a
// dynamic shared memory that is not 1024-byte aligned, D in wgmma's
// accumulator fragment) and compares C with numpy: exact for 16-bit and
// i8 inputs (small integers), the matmul gate for f8 (whose kernels sum
// each K slice apart and add it into the f32 accumulator: the promotion). B as [N, K] (K-major)
// and [K, N] (N-major), remainders in M, N and K, batches, accumulate, an
// f16 C, one and two wgmma groups in flight, 1 to 3 warpgroups. The race
// detector also fails a copy into a buffer that a wgmma in flight reads.
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma" --mlir-print-op-generic -o %t.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=64 tile-n=64 stages=2" --mlir-print-op-generic -o %t.s2.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.s2.mlir --seed 1 | FileCheck %s
// Three warpgroups: 192 x 128 tiles, 192 x 64 for f8 (its promotion's
// second accumulator narrows the chosen tile to fit the registers).
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=192 stages=3" --mlir-print-op-generic -o %t.wide.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.wide.mlir --seed 2 | FileCheck %s
// Without the barrier before the refill, the copies race the other
// warpgroups' wgmmas.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.mlir --drop-barrier 0 | FileCheck %s --check-prefix=RACE

// CHECK: @kn_0: OK (M=100 N=200 K=136,
// CHECK: @tb_0: OK (M=72 N=40 K=200 transpose_b,
// CHECK: @i8_0: OK (M=130 N=48 K=144 transpose_b,
// CHECK: @f8_0: OK (M=80 N=72 K=256 transpose_b,
// CHECK: @f8_f32_0: OK (M=64 N=48 K=384 transpose_b,
// CHECK: @acc_0: OK (M=70 N=136 K=48,
// RACE: @kn_0: FAILED: shared-memory race

func.func @kn(%a: tensor<100x136xbf16>, %b: tensor<136x200xbf16>) -> tensor<100x200xf32> {
  %c = tensor.empty() : tensor<100x200xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x136xbf16>, tensor<136x200xbf16>) outs(%c : tensor<100x200xf32>) -> tensor<100x200xf32>
  return %0 : tensor<100x200xf32>
}

func.func @tb(%a: tensor<72x200xf16>, %b: tensor<40x200xf16>) -> tensor<72x40xf16> {
  %c = tensor.empty() : tensor<72x40xf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<72x200xf16>, tensor<40x200xf16>) outs(%c : tensor<72x40xf16>) -> tensor<72x40xf16>
  return %0 : tensor<72x40xf16>
}

func.func @i8(%a: tensor<130x144xi8>, %b: tensor<48x144xi8>) -> tensor<130x48xi32> {
  %c = tensor.empty() : tensor<130x48xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<130x144xi8>, tensor<48x144xi8>) outs(%c : tensor<130x48xi32>) -> tensor<130x48xi32>
  return %0 : tensor<130x48xi32>
}

func.func @f8(%a: tensor<3x80x256xf8E4M3FN>, %b: tensor<3x72x256xf8E5M2>, %c: tensor<3x80x72xf16>) -> tensor<3x80x72xf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x80x256xf8E4M3FN>, tensor<3x72x256xf8E5M2>) outs(%c : tensor<3x80x72xf16>) -> tensor<3x80x72xf16>
  return %0 : tensor<3x80x72xf16>
}

// Three K slices promoted into a zero f32 accumulator.
func.func @f8_f32(%a: tensor<64x384xf8E5M2>, %b: tensor<48x384xf8E4M3FN>) -> tensor<64x48xf32> {
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x384xf8E5M2>, tensor<48x384xf8E4M3FN>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
}

func.func @acc(%a: tensor<2x70x48xf16>, %b: tensor<2x48x136xf16>, %c: tensor<2x70x136xf32>) -> tensor<2x70x136xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x70x48xf16>, tensor<2x48x136xf16>) outs(%c : tensor<2x70x136xf32>) -> tensor<2x70x136xf32>
  return %0 : tensor<2x70x136xf32>
}
