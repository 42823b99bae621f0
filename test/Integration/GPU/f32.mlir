// f32 programs on an NVIDIA GPU against the fp64 oracle: matmuls on the
// exact fma kernel (FFMA, no TF32 unless allow-tf32) with remainders in M, N and K, B as
// [N, K], a batch, a bias + GELU epilogue and the 128 x 128 tile, and
// attention on the fma attention kernel (causal GQA, an additive mask).
// Unsupported without a GPU; bench/gpu/check.py records these RUN lines
// for a device run, and ptxas-catalogue.test assembles their kernels.
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx --dist=normal | FileCheck %s
// RUN: accel-run %s --target=nvptx --dist=normal --nvptx-pipeline-options="chip=sm_90a" | FileCheck %s
// allow-tf32: the same programs with their inputs rounded to TF32, the
// matmuls on mma.sync m16n8k8 / wgmma m64nNk8 .tf32 and the attention on
// the TF32 mma.sync kernel, against the oracle of the rounded program.
// RUN: accel-run %s --target=nvptx --dist=normal --nvptx-pipeline-options="chip=sm_90a allow-tf32=1" | FileCheck %s
// CHECK: accel-run: 6 of 6 functions passed

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>

func.func @ragged_100x37x72(%a: tensor<100x37xf32>, %b: tensor<37x72xf32>) -> tensor<100x72xf32> {
  %c = tensor.empty() : tensor<100x72xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x37xf32>, tensor<37x72xf32>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  return %0 : tensor<100x72xf32>
}

func.func @bt_batched_2x65x48x33(%a: tensor<2x65x48xf32>, %b: tensor<2x33x48xf32>) -> tensor<2x65x33xf32> {
  %c = tensor.empty() : tensor<2x65x33xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<2x65x48xf32>, tensor<2x33x48xf32>) outs(%c : tensor<2x65x33xf32>) -> tensor<2x65x33xf32>
  return %0 : tensor<2x65x33xf32>
}

func.func @large_2048x2048x256(%a: tensor<2048x256xf32>, %b: tensor<256x2048xf32>) -> tensor<2048x2048xf32> {
  %c = tensor.empty() : tensor<2048x2048xf32>
  %0 = accel.matmul ins(%a, %b : tensor<2048x256xf32>, tensor<256x2048xf32>) outs(%c : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %0 : tensor<2048x2048xf32>
}

func.func @linear_gelu_130x96x80(%a: tensor<130x96xf32>, %b: tensor<96x80xf32>, %bias: tensor<80xf32>) -> tensor<130x80xf32> {
  %e = tensor.empty() : tensor<130x80xf32>
  %mm = accel.matmul ins(%a, %b : tensor<130x96xf32>, tensor<96x80xf32>) outs(%e : tensor<130x80xf32>) -> tensor<130x80xf32>
  %e1 = tensor.empty() : tensor<130x80xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<130x80xf32>, tensor<80xf32>) outs(%e1 : tensor<130x80xf32>) {
  ^bb0(%x0: f32, %y: f32, %o: f32):
    %x = arith.addf %x0, %y : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.70710678 : f32
    %t = arith.mulf %x, %rs2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %x, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<130x80xf32>
  return %g : tensor<130x80xf32>
}

func.func @attention_causal_gqa(%q: tensor<1x8x300x64xf32>, %k: tensor<1x2x300x64xf32>, %v: tensor<1x2x300x64xf32>) -> tensor<1x8x300x64xf32> {
  %o = tensor.empty() : tensor<1x8x300x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x300x64xf32>, tensor<1x2x300x64xf32>, tensor<1x2x300x64xf32>) outs(%o : tensor<1x8x300x64xf32>) -> tensor<1x8x300x64xf32>
  return %0 : tensor<1x8x300x64xf32>
}

func.func @attention_mask_d128(%q: tensor<2x4x100x128xf32>, %k: tensor<2x4x170x128xf32>, %v: tensor<2x4x170x128xf32>, %m: tensor<100x170xf32>) -> tensor<2x4x100x128xf32> {
  %o = tensor.empty() : tensor<2x4x100x128xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x100x128xf32>, tensor<2x4x170x128xf32>, tensor<2x4x170x128xf32>) mask(%m : tensor<100x170xf32>) outs(%o : tensor<2x4x100x128xf32>) -> tensor<2x4x100x128xf32>
  return %0 : tensor<2x4x100x128xf32>
}
