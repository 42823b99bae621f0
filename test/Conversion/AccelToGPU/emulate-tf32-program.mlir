// REQUIRES: numpy
// compute = tf32 on a whole program, checked against the fp64 oracle
// without a GPU: accel-lower-precision rounds each matmul's A and B to TF32
// values (elementwise kernels) and marks the matmul accel.tf32_inputs;
// accel-run records inputs of that program (--record), the emulator runs
// the sm_80, sm_90a and gfx942 kernels on them (the rounding kernels, then
// the matmul on mma.sync m16n8k8 .tf32, wgmma m64nNk8 .tf32 or
// v_mfma_f32_16x16x8_xf32, its epilogue fused), and accel-run --replay
// holds what they wrote to the oracle of the lowered program, which rounds
// the inputs as the program says and sums in f32: the f32 matmul gate.
// RUN: accel-opt %s --accel-lower-precision -o %t.low.mlir
// RUN: rm -rf %t.rec
// RUN: accel-run %t.low.mlir --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %t.low.mlir --target=nvptx --replay=%t.rec | FileCheck %s
// sm_90a: the [N, K] matmul on wgmma m64nNk8 .tf32, the other on mma.sync.
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: FileCheck %s --check-prefix=HOPPER < %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %t.low.mlir --target=nvptx --replay=%t.rec | FileCheck %s
// gfx942: the same program with the matmuls on xf32 MFMA.
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: FileCheck %s --check-prefix=AMD < %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %t.low.mlir --target=nvptx --replay=%t.rec | FileCheck %s
//
// The gate is the f32 one: tensor cores fed f32 values that are not TF32
// (the matmul marked by hand, no rounding kernels: the mma drops their low
// bits) fail it against the f32 program's oracle.
// RUN: sed -e 's/{accel.precision = #accel.precision<compute = tf32>}/{accel.tf32_inputs}/' %s > %t.unrounded.mlir
// RUN: rm -rf %t.rec2
// RUN: accel-run %t.unrounded.mlir --target=nvptx --record=%t.rec2 | FileCheck %s --check-prefix=REC
// RUN: accel-opt %t.unrounded.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.bad.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad.mlir --launch-record %t.rec2 | FileCheck %s --check-prefix=LAUNCH
// RUN: not accel-run %t.unrounded.mlir --target=nvptx --replay=%t.rec2 | FileCheck %s --check-prefix=BAD

// REC: accel-run: recorded 2 functions

// KERNEL-COUNT-2: mma = "mma.sync"
// KERNEL-NOT: mma = "fma"

// HOPPER: mma = "mma.sync",{{.*}}sym_name = "linear_relu_0"
// HOPPER: mma = "wgmma",{{.*}}sym_name = "nk_residual_0"

// AMD-COUNT-2: mma = "mfma"
// AMD-NOT: mma = "fma"

// LAUNCH-NOT: FAILED
// LAUNCH: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @linear_relu
// CHECK: PASS
// CHECK-LABEL: @nk_residual
// CHECK: PASS

// BAD: FAIL

func.func @linear_relu(%x: tensor<96x200xf32>, %w: tensor<200x72xf32>, %bias: tensor<72xf32>) -> tensor<96x72xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x72xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<96x72xf32>) -> tensor<96x72xf32>
  %mm = accel.matmul ins(%x, %w : tensor<96x200xf32>, tensor<200x72xf32>) outs(%o : tensor<96x72xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<96x72xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<96x72xf32>, tensor<72xf32>) outs(%e : tensor<96x72xf32>) {
  ^bb0(%m: f32, %b: f32, %out: f32):
    %s = arith.addf %m, %b : f32
    %y = arith.maximumf %s, %z : f32
    linalg.yield %y : f32
  } -> tensor<96x72xf32>
  return %r : tensor<96x72xf32>
}

func.func @nk_residual(%x: tensor<64x128xf32>, %w: tensor<80x128xf32>, %res: tensor<64x80xf32>) -> tensor<64x80xf32> {
  %mm = accel.matmul transpose_b accumulate ins(%x, %w : tensor<64x128xf32>, tensor<80x128xf32>) outs(%res : tensor<64x80xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<64x80xf32>
  return %mm : tensor<64x80xf32>
}
