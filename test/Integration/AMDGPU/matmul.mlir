// f16 and bf16 matmuls on AMD matrix cores (MFMA on CDNA, WMMA on RDNA3)
// run on an AMD GPU against the fp64 oracle, with remainders in M and N,
// and i8 with B as [K, N] and [N, K]. For an MI300 (gfx942) by default.
// Unsupported without a GPU; test/Conversion/AccelToGPU/emulate-amdgpu.mlir
// runs the same kernels in the CPU emulator.
// REQUIRES: hip
//
// RUN: accel-run %s --target=amdgpu | FileCheck %s
// RUN: accel-run %s --target=amdgpu --dist=normal --amdgpu-pipeline-options="tile-m=64 tile-n=64 tile-k=32 warps=4" | FileCheck %s
// CHECK: accel-run: 6 of 6 functions passed

func.func @f16_100x64x72(%a: tensor<100x64xf16>, %b: tensor<64x72xf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf16>, tensor<64x72xf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @bf16_257x40x136(%a: tensor<257x40xbf16>, %b: tensor<40x136xbf16>) -> tensor<257x136xf32> {
  %c = tensor.empty() : tensor<257x136xf32>
  %0 = accel.matmul ins(%a, %b : tensor<257x40xbf16>, tensor<40x136xbf16>) outs(%c : tensor<257x136xf32>) -> tensor<257x136xf32>
  return %0 : tensor<257x136xf32>
}

func.func @f16_out_f16(%a: tensor<128x128xf16>, %b: tensor<128x128xf16>) -> tensor<128x128xf16> {
  %c = tensor.empty() : tensor<128x128xf16>
  %0 = accel.matmul ins(%a, %b : tensor<128x128xf16>, tensor<128x128xf16>) outs(%c : tensor<128x128xf16>) -> tensor<128x128xf16>
  return %0 : tensor<128x128xf16>
}

func.func @bf16_1024(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  %c = tensor.empty() : tensor<1024x1024xf32>
  %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

func.func @i8_kn(%a: tensor<100x136xi8>, %b: tensor<136x72xi8>) -> tensor<100x72xi32> {
  %c = tensor.empty() : tensor<100x72xi32>
  %0 = accel.matmul ins(%a, %b : tensor<100x136xi8>, tensor<136x72xi8>) outs(%c : tensor<100x72xi32>) -> tensor<100x72xi32>
  return %0 : tensor<100x72xi32>
}

func.func @i8_nk(%a: tensor<100x136xi8>, %b: tensor<72x136xi8>) -> tensor<100x72xi32> {
  %c = tensor.empty() : tensor<100x72xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x136xi8>, tensor<72x136xi8>) outs(%c : tensor<100x72xi32>) -> tensor<100x72xi32>
  return %0 : tensor<100x72xi32>
}
