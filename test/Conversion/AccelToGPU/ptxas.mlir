// REQUIRES: ptxas
// NVIDIA's assembler accepts the kernels' PTX for sm_80 and sm_90a, without
// spilling registers: the default small and large tiles, f16 and bf16,
// transpose_b, accumulate, batches, remainders and 8-byte copies (K = 36).
// RUN: accel-opt %s --convert-accel-to-gpu | accel-opt %gpu_to_ptx_sm_80 -o %t.sm80.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir f16_kernels > %t.f16.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir bf16_kernels > %t.bf16.ptx
// RUN: %python %S/Inputs/extract_ptx.py %t.sm80.mlir large_kernels > %t.large.ptx
// RUN: %ptxas -v -arch=sm_80 %t.f16.ptx -o %t.f16.cubin 2>&1 | FileCheck %s --check-prefix=F16
// RUN: %ptxas -v -arch=sm_80 %t.bf16.ptx -o %t.bf16.cubin 2>&1 | FileCheck %s --check-prefix=BF16
// RUN: %ptxas -v -arch=sm_80 %t.large.ptx -o %t.large.cubin 2>&1 | FileCheck %s --check-prefix=LARGE
// PTX for sm_80 runs on Hopper too.
// RUN: %ptxas -v -arch=sm_90a %t.bf16.ptx -o %t.bf16.90.cubin 2>&1 | FileCheck %s --check-prefix=BF16-90
// And kernels compiled for sm_90a from the start.
// RUN: accel-opt %s --convert-accel-to-gpu=chip=sm_90a | accel-opt %gpu_to_ptx_sm_90a -o %t.sm90a.mlir
// RUN: %python %S/Inputs/extract_ptx.py %t.sm90a.mlir large_kernels > %t.large90.ptx
// RUN: FileCheck %s --check-prefix=TARGET < %t.large90.ptx
// RUN: %ptxas -v -arch=sm_90a %t.large90.ptx -o %t.large90.cubin 2>&1 | FileCheck %s --check-prefix=LARGE-90

// F16: Compiling entry function 'f16_0' for 'sm_80'
// F16: 0 bytes spill stores, 0 bytes spill loads
// F16: Used {{[0-9]+}} registers, used 1 barriers
// BF16: Compiling entry function 'bf16_0' for 'sm_80'
// BF16: 0 bytes spill stores, 0 bytes spill loads
// LARGE: Compiling entry function 'large_0' for 'sm_80'
// LARGE: 0 bytes spill stores, 0 bytes spill loads
// BF16-90: Compiling entry function 'bf16_0' for 'sm_90a'
// BF16-90: 0 bytes spill stores, 0 bytes spill loads
// TARGET: .target sm_90a
// LARGE-90: Compiling entry function 'large_0' for 'sm_90a'
// LARGE-90: 0 bytes spill stores, 0 bytes spill loads

func.func @f16(%a: tensor<100x36xf16>, %b: tensor<36x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x36xf16>, tensor<36x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @bf16(%a: tensor<3x257x40xbf16>, %b: tensor<3x136x40xbf16>, %c: tensor<3x257x136xbf16>) -> tensor<3x257x136xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x257x40xbf16>, tensor<3x136x40xbf16>) outs(%c : tensor<3x257x136xbf16>) -> tensor<3x257x136xbf16>
  return %0 : tensor<3x257x136xbf16>
}

// 128x128x32, 8 warps, 3 stages: 56832 bytes, beyond the 48 KiB of static
// shared memory.
func.func @large(%a: tensor<2000x512xf16>, %b: tensor<512x2000xf16>) -> tensor<2000x2000xf16> {
  %c = tensor.empty() : tensor<2000x2000xf16>
  %0 = accel.matmul ins(%a, %b : tensor<2000x512xf16>, tensor<512x2000xf16>) outs(%c : tensor<2000x2000xf16>) -> tensor<2000x2000xf16>
  return %0 : tensor<2000x2000xf16>
}
