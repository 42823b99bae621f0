// REQUIRES: numpy
// compute = tf32 on f32 attention (PyTorch's allow_tf32): accel-lower-
// precision rounds Q, K and V to TF32 values (elementwise kernels) and
// marks the attention accel.tf32_inputs; the GPU configuration puts it on
// the TF32 matrix instructions: mma.sync m16n8k8 .tf32 on NVIDIA (sm_90a
// too: there is no TF32 wgmma attention kernel), xf32 MFMA 16x16x8 on
// gfx942, with P rounded to TF32 before P.V. Key blocks of 64, or 32 where
// the f32 tiles would not fit (D = 128 on sm_80's 163 KiB and gfx942's
// 64 KiB). Checked without a GPU: accel-run records inputs of the lowered
// program, the emulator runs the kernels (the rounding kernels, then the
// attention) and accel-run --replay holds what they wrote to the oracle of
// the lowered program, whose GPU attention gate rounds P to TF32 (2^-11)
// instead of to the f32 inputs' type.
// RUN: accel-opt %s --accel-lower-precision -o %t.low.mlir
// RUN: FileCheck %s --check-prefix=LOW < %t.low.mlir
// RUN: rm -rf %t.rec
// RUN: accel-run %t.low.mlir --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %t.low.mlir --target=nvptx --replay=%t.rec | FileCheck %s
// gfx942: xf32 MFMA on the same record.
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: FileCheck %s --check-prefix=AMD < %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %t.low.mlir --target=nvptx --replay=%t.rec | FileCheck %s
// sm_90a keeps mma.sync, with key blocks of 64 at D = 128 (its 227 KiB);
// gfx1100 has no xf32 instruction: the fma kernel multiplies the same
// TF32 values exactly.
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic | FileCheck %s --check-prefix=HOPPER
// RUN: accel-opt %t.low.mlir --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic | FileCheck %s --check-prefix=RDNA
//
// The gate: the TF32 kernel (the attention marked by hand, no rounding
// kernels) run on the f32 program's inputs fails the f32 program's oracle,
// whose attention keeps P in f32 (worst err/gate 12-26): only the mark
// grants P's TF32 rounding. The gate is not that of a TF32 kernel on
// inputs that are not TF32 values: their truncation (2^-10) is of the
// order of P's allowance and passes (err/gate 0.29-0.56 against 0.11-0.20
// rounded), and so does a P truncated instead of rounded (program gate 0.9
// against 0.45); a V fragment off by one key fails at 300-700.
// RUN: sed -e 's/{accel.precision = #accel.precision<compute = tf32>}/{accel.tf32_inputs}/' %s > %t.unrounded.mlir
// RUN: sed -e 's/{accel.precision = #accel.precision<compute = tf32>}//' %s > %t.f32.mlir
// RUN: rm -rf %t.rec2
// RUN: accel-run %t.f32.mlir --target=nvptx --record=%t.rec2 | FileCheck %s --check-prefix=REC
// RUN: accel-opt %t.unrounded.mlir --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.bad.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad.mlir --launch-record %t.rec2 | FileCheck %s --check-prefix=LAUNCH
// RUN: not accel-run %t.f32.mlir --target=nvptx --replay=%t.rec2 | FileCheck %s --check-prefix=BAD

// LOW-COUNT-4: accel.attention {{.*}}accel.tf32_inputs

// REC: accel-run: recorded 4 functions

// KERNEL: kind = "attention", mma = "mma.sync"{{.*}}tile = array<i64: 64, 64>}, gpu.kernel, sym_name = "causal_gqa_0"
// KERNEL: kind = "attention", mma = "mma.sync"{{.*}}tile = array<i64: 64, 32>}, gpu.kernel, sym_name = "d128_mqa_0"
// KERNEL: kind = "attention", mask = "bool", mma = "mma.sync"{{.*}}sym_name = "bool_mask_0"
// KERNEL-NOT: mma = "fma"

// AMD-LABEL: sym_name = "causal_gqa_kernels"
// AMD: "amdgpu.mfma"{{.*}}k = 8 : i32, m = 16 : i32, n = 16 : i32, reducePrecision}> : (vector<2xf32>, vector<2xf32>, vector<4xf32>)
// AMD: kind = "attention", scale{{.*}}tile = array<i64: 64, 64>}, gpu.kernel, sym_name = "causal_gqa_0"
// AMD: kind = "attention", scale{{.*}}tile = array<i64: 64, 32>}, gpu.kernel, sym_name = "d128_mqa_0"

// HOPPER-NOT: mma = "wgmma"
// HOPPER: kind = "attention", mma = "mma.sync"{{.*}}tile = array<i64: 64, 64>}, gpu.kernel, sym_name = "d128_mqa_0"
// HOPPER-NOT: mma = "wgmma"

// RDNA-NOT: amdgpu.wmma
// RDNA-COUNT-4: block = array<i64: 256, 1, 1>{{.*}}kind = "attention"
// RDNA-NOT: amdgpu.wmma

// LAUNCH-NOT: FAILED
// LAUNCH: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @causal_gqa
// CHECK: PASS
// CHECK-LABEL: @d128_mqa
// CHECK: PASS
// CHECK-LABEL: @bool_mask
// CHECK: PASS
// CHECK-LABEL: @few_keys_additive
// CHECK: PASS

// BAD-COUNT-4: -> FAIL
// BAD: 0 of 4 functions passed

// Causal GQA with remainders along Sq and Skv (two key blocks of 64, the
// second partial).
func.func @causal_gqa(%q: tensor<1x4x70x64xf32>, %k: tensor<1x2x90x64xf32>, %v: tensor<1x2x90x64xf32>) -> tensor<1x4x70x64xf32> {
  %o = tensor.empty() : tensor<1x4x70x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x70x64xf32>, tensor<1x2x90x64xf32>, tensor<1x2x90x64xf32>) outs(%o : tensor<1x4x70x64xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<1x4x70x64xf32>
  return %0 : tensor<1x4x70x64xf32>
}

// D = Dv = 128: key blocks of 32 on sm_80 and gfx942 (three, the last
// partial); MQA.
func.func @d128_mqa(%q: tensor<1x2x65x128xf32>, %k: tensor<1x1x72x128xf32>, %v: tensor<1x1x72x128xf32>) -> tensor<1x2x65x128xf32> {
  %o = tensor.empty() : tensor<1x2x65x128xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x65x128xf32>, tensor<1x1x72x128xf32>, tensor<1x1x72x128xf32>) outs(%o : tensor<1x2x65x128xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<1x2x65x128xf32>
  return %0 : tensor<1x2x65x128xf32>
}

// A boolean mask broadcast over the heads, Dv = 32.
func.func @bool_mask(%q: tensor<2x2x33x32xf32>, %k: tensor<2x2x80x32xf32>, %v: tensor<2x2x80x32xf32>, %m: tensor<2x1x33x80xi1>) -> tensor<2x2x33x32xf32> {
  %o = tensor.empty() : tensor<2x2x33x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x2x33x32xf32>, tensor<2x2x80x32xf32>, tensor<2x2x80x32xf32>) mask(%m : tensor<2x1x33x80xi1>) outs(%o : tensor<2x2x33x32xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<2x2x33x32xf32>
  return %0 : tensor<2x2x33x32xf32>
}

// Fewer keys than a block and an additive mask along the keys; D = 16.
func.func @few_keys_additive(%q: tensor<1x1x16x16xf32>, %k: tensor<1x1x10x16xf32>, %v: tensor<1x1x10x16xf32>, %m: tensor<10xf32>) -> tensor<1x1x16x16xf32> {
  %o = tensor.empty() : tensor<1x1x16x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x16x16xf32>, tensor<1x1x10x16xf32>, tensor<1x1x10x16xf32>) mask(%m : tensor<10xf32>) outs(%o : tensor<1x1x16x16xf32>) {accel.precision = #accel.precision<compute = tf32>} -> tensor<1x1x16x16xf32>
  return %0 : tensor<1x1x16x16xf32>
}
