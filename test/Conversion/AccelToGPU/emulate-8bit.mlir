// REQUIRES: numpy
// The i8 and f8 kernels on the CPU (Inputs/emulate_kernels.py, as in
// emulate.mlir): i8 bit-exact against int64 sums wrapped to i32 (A, B over
// all of i8 and an accumulated C near the ends of i32, so the sums wrap),
// f8 codes decoded exactly with f32 sums, within the matmul gate. B is
// [N, K] (transpose_b), the layout of the 8-bit kernels. Remainders along
// M, N (odd N) and K, 4-, 8- and 16-byte copies, batches, K = 0. The race
// detector is on (emulate-races.mlir).
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_89 --mlir-print-op-generic -o %t.default.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.default.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_89 stages=4" --mlir-print-op-generic -o %t.s4.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.s4.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_89 tile-m=16 tile-n=32 tile-k=32 warps=2" --mlir-print-op-generic -o %t.small.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.small.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_89 tile-m=32 tile-n=16 tile-k=128 warps=1 stages=2" --mlir-print-op-generic -o %t.w1.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.w1.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=mma.sync tile-m=128 tile-n=128 warps=8" --mlir-print-op-generic -o %t.large.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.large.mlir | FileCheck %s

// CHECK: @i8_acc_0: OK (M=50 N=37 K=36 transpose_b,
// CHECK: @i8_big_0: OK (M=100 N=72 K=136 transpose_b,
// CHECK: @i8_kzero_0: OK (M=20 N=24 K=0,
// CHECK: @f8_e4m3_0: OK (M=33 N=40 K=96 transpose_b,
// CHECK: @f8_mixed_0: OK (M=64 N=18 K=48 transpose_b,
// CHECK: @f8_e5m2_f16_0: OK (M=20 N=24 K=100 transpose_b,
// CHECK-NOT: FAILED

func.func @i8_acc(%a: tensor<2x50x36xi8>, %b: tensor<2x37x36xi8>, %c: tensor<2x50x37xi32>) -> tensor<2x50x37xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x50x36xi8>, tensor<2x37x36xi8>) outs(%c : tensor<2x50x37xi32>) -> tensor<2x50x37xi32>
  return %0 : tensor<2x50x37xi32>
}

func.func @i8_big(%a: tensor<100x136xi8>, %b: tensor<72x136xi8>) -> tensor<100x72xi32> {
  %c = tensor.empty() : tensor<100x72xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x136xi8>, tensor<72x136xi8>) outs(%c : tensor<100x72xi32>) -> tensor<100x72xi32>
  return %0 : tensor<100x72xi32>
}

func.func @i8_kzero(%a: tensor<20x0xi8>, %b: tensor<24x0xi8>, %c: tensor<20x24xi32>) -> tensor<20x24xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<20x0xi8>, tensor<24x0xi8>) outs(%c : tensor<20x24xi32>) -> tensor<20x24xi32>
  return %0 : tensor<20x24xi32>
}

func.func @f8_e4m3(%a: tensor<33x96xf8E4M3FN>, %b: tensor<40x96xf8E4M3FN>) -> tensor<33x40xf32> {
  %c = tensor.empty() : tensor<33x40xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<33x96xf8E4M3FN>, tensor<40x96xf8E4M3FN>) outs(%c : tensor<33x40xf32>) -> tensor<33x40xf32>
  return %0 : tensor<33x40xf32>
}

func.func @f8_mixed(%a: tensor<3x64x48xf8E4M3FN>, %b: tensor<3x18x48xf8E5M2>, %c: tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x64x48xf8E4M3FN>, tensor<3x18x48xf8E5M2>) outs(%c : tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16>
  return %0 : tensor<3x64x18xbf16>
}

func.func @f8_e5m2_f16(%a: tensor<20x100xf8E5M2>, %b: tensor<24x100xf8E4M3FN>) -> tensor<20x24xf16> {
  %c = tensor.empty() : tensor<20x24xf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<20x100xf8E5M2>, tensor<24x100xf8E4M3FN>) outs(%c : tensor<20x24xf16>) -> tensor<20x24xf16>
  return %0 : tensor<20x24xf16>
}
