// i8 (mma.sync s8, i32 sums that wrap) and f8 (mma.sync e4m3/e5m2, sm_89
// and newer) tensor-core matmuls run on an NVIDIA GPU against the fp64
// oracle (bit-exact for i8, the matmul gate for f8), with remainders in M,
// N and K. B is [N, K] (transpose_b), the layout of the 8-bit kernels.
// Unsupported without a GPU.
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a" | FileCheck %s
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a tile-m=64 tile-n=64 tile-k=32 stages=4" | FileCheck %s
// CHECK: accel-run: 5 of 5 functions passed

func.func @i8_100x136x72(%a: tensor<100x136xi8>, %b: tensor<72x136xi8>) -> tensor<100x72xi32> {
  %c = tensor.empty() : tensor<100x72xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x136xi8>, tensor<72x136xi8>) outs(%c : tensor<100x72xi32>) -> tensor<100x72xi32>
  return %0 : tensor<100x72xi32>
}

func.func @i8_acc_batched(%a: tensor<2x50x36xi8>, %b: tensor<2x37x36xi8>, %c: tensor<2x50x37xi32>) -> tensor<2x50x37xi32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x50x36xi8>, tensor<2x37x36xi8>) outs(%c : tensor<2x50x37xi32>) -> tensor<2x50x37xi32>
  return %0 : tensor<2x50x37xi32>
}

func.func @e4m3_257x96x136(%a: tensor<257x96xf8E4M3FN>, %b: tensor<136x96xf8E4M3FN>) -> tensor<257x136xf32> {
  %c = tensor.empty() : tensor<257x136xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<257x96xf8E4M3FN>, tensor<136x96xf8E4M3FN>) outs(%c : tensor<257x136xf32>) -> tensor<257x136xf32>
  return %0 : tensor<257x136xf32>
}

func.func @e4m3_e5m2_bf16(%a: tensor<3x64x48xf8E4M3FN>, %b: tensor<3x18x48xf8E5M2>, %c: tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x64x48xf8E4M3FN>, tensor<3x18x48xf8E5M2>) outs(%c : tensor<3x64x18xbf16>) -> tensor<3x64x18xbf16>
  return %0 : tensor<3x64x18xbf16>
}

func.func @e5m2_1024_f16(%a: tensor<1024x1024xf8E5M2>, %b: tensor<1024x1024xf8E5M2>) -> tensor<1024x1024xf16> {
  %c = tensor.empty() : tensor<1024x1024xf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<1024x1024xf8E5M2>, tensor<1024x1024xf8E5M2>) outs(%c : tensor<1024x1024xf16>) -> tensor<1024x1024xf16>
  return %0 : tensor<1024x1024xf16>
}
