// The warpgroup-MMA GEMM kernels of convert-accel-to-gpu (sm_90a:
// wgmma.mma_async reading 128-byte-swizzled shared tiles that cp.async
// fills) run on an NVIDIA Hopper GPU against the fp64 oracle: A K-major, B
// K-major ([N, K], transpose_b) and N-major ([K, N], wgmma's transposed
// B), f16/bf16/f8/i8, remainders in M, N and K, batches, accumulate,
// narrow outputs, one and two wgmma groups in flight. The f8 kernels
// promote each K slice's sum into f32 (Hopper's fp8 tensor cores keep
// about 14 bits) and are held to the gate of that (docs/numerics.md), up
// to K = 8192; their tiles are 128 wide at most. Unsupported without a GPU
// (the PTX is checked by ptxas in
// test/Conversion/AccelToGPU/ptxas-wgmma.mlir).
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a mma=wgmma" | FileCheck %s
// RUN: accel-run %s --target=nvptx --entry=bf16_tb_100x72x136,f16_kn_acc_batched,bf16_kn_out_bf16,bf16_kn_1024,bf16_tb_deep_k,i8_tb_130x48x144 --nvptx-pipeline-options="chip=sm_90a mma=wgmma tile-n=256 stages=3" | FileCheck %s --check-prefix=N256
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a mma=wgmma tile-m=64 tile-n=64 stages=2" | FileCheck %s
// RUN: accel-run %s --target=nvptx --dist=normal --nvptx-pipeline-options="chip=sm_90a mma=wgmma tile-m=192" | FileCheck %s
// CHECK: accel-run: 10 of 10 functions passed
// N256: accel-run: 6 of 6 functions passed

// B as [N, K]; remainders in M, N and K (136 = 2 slices of 64 + 8).
func.func @bf16_tb_100x72x136(%a: tensor<100x136xbf16>, %b: tensor<72x136xbf16>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<100x136xbf16>, tensor<72x136xbf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

// B as [K, N] (N-major), batched, accumulating into C.
func.func @f16_kn_acc_batched(%a: tensor<2x70x48xf16>, %b: tensor<2x48x136xf16>, %c: tensor<2x70x136xf32>) -> tensor<2x70x136xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x70x48xf16>, tensor<2x48x136xf16>) outs(%c : tensor<2x70x136xf32>) -> tensor<2x70x136xf32>
  return %0 : tensor<2x70x136xf32>
}

// A bf16 C: the f32 accumulators rounded in the epilogue.
func.func @bf16_kn_out_bf16(%a: tensor<192x320xbf16>, %b: tensor<320x256xbf16>) -> tensor<192x256xbf16> {
  %c = tensor.empty() : tensor<192x256xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<192x320xbf16>, tensor<320x256xbf16>) outs(%c : tensor<192x256xbf16>) -> tensor<192x256xbf16>
  return %0 : tensor<192x256xbf16>
}

// Many slices: the ring wraps many times.
func.func @bf16_kn_1024(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  %c = tensor.empty() : tensor<1024x1024xf32>
  %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

func.func @bf16_tb_deep_k(%a: tensor<128x4096xbf16>, %b: tensor<256x4096xbf16>) -> tensor<128x256xf32> {
  %c = tensor.empty() : tensor<128x256xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<128x4096xbf16>, tensor<256x4096xbf16>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// i8 (s32 sums that wrap, bit-exact), K a multiple of 16 with a remainder
// of the 128-deep slice.
func.func @i8_tb_130x48x144(%a: tensor<130x144xi8>, %b: tensor<48x144xi8>) -> tensor<130x48xi32> {
  %c = tensor.empty() : tensor<130x48xi32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<130x144xi8>, tensor<48x144xi8>) outs(%c : tensor<130x48xi32>) -> tensor<130x48xi32>
  return %0 : tensor<130x48xi32>
}

// f8 of two kinds, N with a remainder.
func.func @e4m3_e5m2_tb(%a: tensor<64x256xf8E4M3FN>, %b: tensor<200x256xf8E5M2>) -> tensor<64x200xf32> {
  %c = tensor.empty() : tensor<64x200xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<64x256xf8E4M3FN>, tensor<200x256xf8E5M2>) outs(%c : tensor<64x200xf32>) -> tensor<64x200xf32>
  return %0 : tensor<64x200xf32>
}

func.func @e4m3_acc_f16(%a: tensor<3x80x128xf8E4M3FN>, %b: tensor<3x64x128xf8E4M3FN>, %c: tensor<3x80x64xf16>) -> tensor<3x80x64xf16> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x80x128xf8E4M3FN>, tensor<3x64x128xf8E4M3FN>) outs(%c : tensor<3x80x64xf16>) -> tensor<3x80x64xf16>
  return %0 : tensor<3x80x64xf16>
}

// Deep K: 32 and 64 promoted slices (without the promotion, the H200's
// results were 1.6 to 2.4 times the f32 accumulation gate here).
func.func @e4m3_deep_k_4096(%a: tensor<128x4096xf8E4M3FN>, %b: tensor<128x4096xf8E4M3FN>) -> tensor<128x128xf32> {
  %c = tensor.empty() : tensor<128x128xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<128x4096xf8E4M3FN>, tensor<128x4096xf8E4M3FN>) outs(%c : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %0 : tensor<128x128xf32>
}

func.func @e5m2_e4m3_deep_k_8192(%a: tensor<64x8192xf8E5M2>, %b: tensor<192x8192xf8E4M3FN>, %c: tensor<64x192xf32>) -> tensor<64x192xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<64x8192xf8E5M2>, tensor<192x8192xf8E4M3FN>) outs(%c : tensor<64x192xf32>) -> tensor<64x192xf32>
  return %0 : tensor<64x192xf32>
}
