// REQUIRES: ptxas
// The 8-bit kernels through the NVVM lowering to PTX, and NVIDIA's
// assembler accepting them without spills: i8 (mma.sync s8, every chip) on
// sm_80 and sm_90a, f8 (mma.sync e4m3/e5m2, PTX ISA 8.4) on sm_89 and
// sm_90a. Remainders along M, N and K, batches, accumulate, 4-byte copies
// (i8 in Inputs/i8-matmul.mlir, as f8 has no sm_80 kernel).
// RUN: accel-opt %S/Inputs/i8-matmul.mlir --convert-accel-to-gpu=chip=sm_80 | accel-opt %gpu_to_ptx_sm_80 -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir i8_kernels > %t.i8.80.ptx
// RUN: FileCheck %s --check-prefix=I8-PTX < %t.i8.80.ptx
// RUN: %ptxas -v -arch=sm_80 %t.i8.80.ptx -o %t.i8.80.cubin 2>&1 | FileCheck %s --check-prefix=I8-80
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_89 | accel-opt %gpu_to_ptx_sm_89 -o %t.sm89.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm89.mlir f8_kernels > %t.f8.89.ptx
// RUN: FileCheck %s --check-prefix=F8-PTX < %t.f8.89.ptx
// RUN: %ptxas -v -arch=sm_89 %t.f8.89.ptx -o %t.f8.89.cubin 2>&1 | FileCheck %s --check-prefix=F8-89
// RUN: accel-opt %S/Inputs/i8-matmul.mlir --convert-accel-to-gpu=chip=sm_90a | accel-opt %gpu_to_ptx_sm_90a -o %t.i8.sm90a.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.i8.sm90a.mlir i8_kernels > %t.i8.90.ptx
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_90a | accel-opt %gpu_to_ptx_sm_90a -o %t.sm90a.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90a.mlir f8_kernels > %t.f8.90.ptx
// RUN: %ptxas -v -arch=sm_90a %t.i8.90.ptx -o %t.i8.90.cubin 2>&1 | FileCheck %s --check-prefix=I8-90
// RUN: %ptxas -v -arch=sm_90a %t.f8.90.ptx -o %t.f8.90.cubin 2>&1 | FileCheck %s --check-prefix=F8-90
// accel-compile's pipeline (buildGpuToPtxPipeline) picks PTX ISA 8.4 for
// sm_89 and newer, 8.0 for Ampere.
// RUN: rm -rf %t.aot89 %t.aot80
// RUN: accel-compile %s --target=nvptx --chip=sm_89 -o %t.aot89
// RUN: FileCheck %s --check-prefix=F8-PTX < %t.aot89/f8_kernels.ptx
// RUN: accel-compile %S/Inputs/i8-matmul.mlir --target=nvptx --chip=sm_80 -o %t.aot80
// RUN: FileCheck %s --check-prefix=I8-PTX < %t.aot80/i8_kernels.ptx

// I8-PTX: .version 8.0
// I8-PTX: .target sm_80
// I8-PTX: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// I8-PTX: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// I8-PTX-NOT: satfinite
// I8-PTX: st.global.v2.b32
// F8-PTX: .version 8.4
// F8-PTX: .target sm_89
// F8-PTX: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
// F8-PTX: mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32
// I8-80: Compiling entry function 'i8_0' for 'sm_80'
// I8-80: 0 bytes spill stores, 0 bytes spill loads
// ptxas compiles the last kernel first.
// F8-89: Compiling entry function 'f8_1' for 'sm_89'
// F8-89: 0 bytes spill stores, 0 bytes spill loads
// F8-89: Compiling entry function 'f8_0' for 'sm_89'
// F8-89: 0 bytes spill stores, 0 bytes spill loads
// I8-90: Compiling entry function 'i8_0' for 'sm_90a'
// I8-90: 0 bytes spill stores, 0 bytes spill loads
// F8-90: Compiling entry function 'f8_0' for 'sm_90a'
// F8-90: 0 bytes spill stores, 0 bytes spill loads

func.func @f8(%a: tensor<257x96xf8E4M3FN>, %b: tensor<136x96xf8E5M2>, %d: tensor<257x96xf8E5M2>, %d2: tensor<40x96xf8E5M2>, %e: tensor<257x40xf16>) -> (tensor<257x136xf32>, tensor<257x40xf16>) {
  %c = tensor.empty() : tensor<257x136xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<257x96xf8E4M3FN>, tensor<136x96xf8E5M2>) outs(%c : tensor<257x136xf32>) -> tensor<257x136xf32>
  %1 = accel.matmul transpose_b accumulate ins(%d, %d2 : tensor<257x96xf8E5M2>, tensor<40x96xf8E5M2>) outs(%e : tensor<257x40xf16>) -> tensor<257x40xf16>
  return %0, %1 : tensor<257x136xf32>, tensor<257x40xf16>
}
