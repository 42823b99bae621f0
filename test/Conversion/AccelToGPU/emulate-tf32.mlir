// REQUIRES: numpy
// TF32 on the matrix units: an f32 accel.matmul whose inputs
// accel-lower-precision rounded to TF32 (compute = tf32 marks it
// accel.tf32_inputs) runs on NVIDIA's mma.sync kernel with m16n8k8 .tf32
// on sm_80, on sm_90a's wgmma kernel with m64nNk8 .tf32 when B is [N, K]
// (K-major: TF32 wgmma does not transpose B; B as [K, N] stays on
// mma.sync there), and on gfx942's MFMA kernel with
// v_mfma_f32_16x16x8_xf32 (amdgpu.mfma reducePrecision); gfx1100 has no
// f32 WMMA and keeps the FMA kernel, which multiplies the same TF32 values
// exactly. The emulator (Inputs/emulate_kernels.py) fills A and B with
// TF32 values, drops the low 13 bits of every register the mma or mfma
// reads (as the hardware does), and holds C to the f32 matmul gate:
// ragged M, N and K, B as [K, N] (on NVIDIA each lane reads its B fragment
// from shared memory: ldmatrix .trans moves 16-bit elements only) and as
// [N, K] (ldmatrix), accumulation, batches.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_80 --mlir-print-op-generic -o %t.sm80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm80.mlir | FileCheck %s
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_90a --mlir-print-op-generic -o %t.sm90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm90a.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm80.mlir
// RUN: FileCheck %s --check-prefix=MMA < %t.sm80.mlir
// RUN: FileCheck %s --check-prefix=HOPPER < %t.sm90a.mlir
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx942 --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=AMD < %t.gfx942.mlir
// RUN: accel-opt %s --convert-accel-to-gpu=chip=gfx1100 --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir | FileCheck %s
// RUN: FileCheck %s --check-prefix=RDNA < %t.gfx1100.mlir
// Without the mark the FMA kernel runs (f32 inputs are not TF32 values):
// RUN: sed 's/accel.tf32_inputs//' %s | accel-opt --convert-accel-to-gpu=chip=sm_80 | FileCheck %s --check-prefix=UNMARKED

// CHECK: @kn_ragged_0: OK (M=67 N=45 K=100,
// CHECK: @nk_0: OK (M=128 N=96 K=64 transpose_b,
// CHECK: @accumulate_0: OK (M=40 N=72 K=36,
// CHECK: @batched_0: OK (M=33 N=24 K=20,
// CHECK: @nk_ragged_0: OK (M=50 N=30 K=44 transpose_b,

// KERNEL-NOT: wgmma
// KERNEL: "nvvm.mma.sync"{{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, operandSegmentSizes = array<i32: 4, 2, 4>, shape = #nvvm.shape<m = 16, n = 8, k = 8>
// KERNEL-NOT: wgmma
// MMA-COUNT-5: mma = "mma.sync"
// HOPPER: mma = "mma.sync",{{.*}}sym_name = "kn_ragged_0"
// HOPPER: "nvvm.wgmma.mma_async"{{.*}}shape = #nvvm.shape<m = 64, n = {{[0-9]+}}, k = 8>, typeA = #nvvm.wgmma_type<tf32>, typeB = #nvvm.wgmma_type<tf32>
// HOPPER: mma = "wgmma",{{.*}}sym_name = "nk_0"
// HOPPER: mma = "mma.sync",{{.*}}sym_name = "accumulate_0"
// HOPPER: mma = "mma.sync",{{.*}}sym_name = "batched_0"
// HOPPER: mma = "wgmma",{{.*}}sym_name = "nk_ragged_0"
// AMD-COUNT-5: mma = "mfma"
// AMD-NOT: mma = "fma"
// RDNA-COUNT-5: mma = "fma"
// UNMARKED-COUNT-5: mma = "fma"

func.func @kn_ragged(%a: tensor<67x100xf32>, %b: tensor<100x45xf32>) -> tensor<67x45xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = accel.matmul ins(%a, %b : tensor<67x100xf32>, tensor<100x45xf32>) outs(%o : tensor<67x45xf32>) {accel.tf32_inputs} -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

func.func @nk(%a: tensor<128x64xf32>, %b: tensor<96x64xf32>) -> tensor<128x96xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %r = accel.matmul transpose_b ins(%a, %b : tensor<128x64xf32>, tensor<96x64xf32>) outs(%o : tensor<128x96xf32>) {accel.tf32_inputs} -> tensor<128x96xf32>
  return %r : tensor<128x96xf32>
}

func.func @accumulate(%a: tensor<40x36xf32>, %b: tensor<36x72xf32>, %c: tensor<40x72xf32>) -> tensor<40x72xf32> {
  %r = accel.matmul accumulate ins(%a, %b : tensor<40x36xf32>, tensor<36x72xf32>) outs(%c : tensor<40x72xf32>) {accel.tf32_inputs} -> tensor<40x72xf32>
  return %r : tensor<40x72xf32>
}

func.func @batched(%a: tensor<3x33x20xf32>, %b: tensor<3x20x24xf32>) -> tensor<3x33x24xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x33x24xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<3x33x24xf32>) -> tensor<3x33x24xf32>
  %r = accel.matmul ins(%a, %b : tensor<3x33x20xf32>, tensor<3x20x24xf32>) outs(%o : tensor<3x33x24xf32>) {accel.tf32_inputs} -> tensor<3x33x24xf32>
  return %r : tensor<3x33x24xf32>
}

func.func @nk_ragged(%a: tensor<50x44xf32>, %b: tensor<30x44xf32>) -> tensor<50x30xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x30xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<50x30xf32>) -> tensor<50x30xf32>
  %r = accel.matmul transpose_b ins(%a, %b : tensor<50x44xf32>, tensor<30x44xf32>) outs(%o : tensor<50x30xf32>) {accel.tf32_inputs} -> tensor<50x30xf32>
  return %r : tensor<50x30xf32>
}
