// FlashAttention kernels of convert-accel-to-gpu (accel.attention: f16
// and bf16, causal and not, MHA/GQA/MQA, remainders along Sq and Skv, rows
// that keep no key; mma.sync on sm_80, the warpgroup-MMA kernel on sm_90a
// where D and Dv are multiples of 64) run on an NVIDIA GPU against the fp64 oracle and
// docs/numerics.md's attention gate. Unsupported without a GPU; the same
// cases run in the CPU emulator in
// test/Conversion/AccelToGPU/emulate-attention.mlir.
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx | FileCheck %s
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a stages=3" | FileCheck %s
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a" | FileCheck %s
// CHECK: accel-run: 8 of 8 functions passed

// Non-causal f16 with remainders along Sq and Skv, f32 O.
func.func @remainders(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}

// Causal (bottom-right: Skv > Sq), GQA with 2 query heads per KV head, f16 O.
func.func @causal_gqa(%q: tensor<1x4x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>) -> tensor<1x4x77x64xf16> {
  %o = tensor.empty() : tensor<1x4x77x64xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x4x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) outs(%o : tensor<1x4x77x64xf16>) -> tensor<1x4x77x64xf16>
  return %0 : tensor<1x4x77x64xf16>
}

// bf16, D = 128, MQA, causal with Sq = Skv = 129: the last query block
// needs exactly one key of the third key block (the loop bound).
func.func @causal_mqa_d128(%q: tensor<1x2x129x128xbf16>, %k: tensor<1x1x129x128xbf16>, %v: tensor<1x1x129x128xbf16>) -> tensor<1x2x129x128xbf16> {
  %o = tensor.empty() : tensor<1x2x129x128xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x129x128xbf16>, tensor<1x1x129x128xbf16>, tensor<1x1x129x128xbf16>) outs(%o : tensor<1x2x129x128xbf16>) -> tensor<1x2x129x128xbf16>
  return %0 : tensor<1x2x129x128xbf16>
}

// Causal with Sq > Skv: the first 53 query rows keep no key (0), the first
// query block visits one key block.
func.func @causal_sq_gt_skv(%q: tensor<2x1x130x64xbf16>, %k: tensor<2x1x77x64xbf16>, %v: tensor<2x1x77x64xbf16>) -> tensor<2x1x130x64xf32> {
  %o = tensor.empty() : tensor<2x1x130x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x1x130x64xbf16>, tensor<2x1x77x64xbf16>, tensor<2x1x77x64xbf16>) outs(%o : tensor<2x1x130x64xf32>) -> tensor<2x1x130x64xf32>
  return %0 : tensor<2x1x130x64xf32>
}

// Non-causal, Sq > Skv, D = 128, an explicit scale.
func.func @wide_queries(%q: tensor<2x2x130x128xf16>, %k: tensor<2x1x64x128xf16>, %v: tensor<2x1x64x128xf16>) -> tensor<2x2x130x128xf32> {
  %o = tensor.empty() : tensor<2x2x130x128xf32>
  %0 = accel.attention scale(0.25) ins(%q, %k, %v : tensor<2x2x130x128xf16>, tensor<2x1x64x128xf16>, tensor<2x1x64x128xf16>) outs(%o : tensor<2x2x130x128xf32>) -> tensor<2x2x130x128xf32>
  return %0 : tensor<2x2x130x128xf32>
}

// An explicit diagonal: rows 0..69 keep no key and must be exactly 0; the
// first query block has no key block at all. Dv != D.
func.func @diagonal_empty_rows(%q: tensor<1x1x100x64xbf16>, %k: tensor<1x1x90x64xbf16>, %v: tensor<1x1x90x32xbf16>) -> tensor<1x1x100x32xf32> {
  %d = arith.constant -70 : index
  %o = tensor.empty() : tensor<1x1x100x32xf32>
  %0 = accel.attention causal diagonal(%d) ins(%q, %k, %v : tensor<1x1x100x64xbf16>, tensor<1x1x90x64xbf16>, tensor<1x1x90x32xbf16>) outs(%o : tensor<1x1x100x32xf32>) -> tensor<1x1x100x32xf32>
  return %0 : tensor<1x1x100x32xf32>
}

// A realistic size: 8 query heads on 2 KV heads, 1024 tokens, D = 128.
func.func @causal_gqa_1024(%q: tensor<2x8x1024x128xf16>, %k: tensor<2x2x1024x128xf16>, %v: tensor<2x2x1024x128xf16>) -> tensor<2x8x1024x128xf16> {
  %o = tensor.empty() : tensor<2x8x1024x128xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x8x1024x128xf16>, tensor<2x2x1024x128xf16>, tensor<2x2x1024x128xf16>) outs(%o : tensor<2x8x1024x128xf16>) -> tensor<2x8x1024x128xf16>
  return %0 : tensor<2x8x1024x128xf16>
}

// Decoding-like: few queries against a long KV cache, bf16.
func.func @decode_bf16(%q: tensor<4x16x16x64xbf16>, %k: tensor<4x16x2000x64xbf16>, %v: tensor<4x16x2000x64xbf16>) -> tensor<4x16x16x64xf32> {
  %o = tensor.empty() : tensor<4x16x16x64xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<4x16x16x64xbf16>, tensor<4x16x2000x64xbf16>, tensor<4x16x2000x64xbf16>) outs(%o : tensor<4x16x16x64xf32>) -> tensor<4x16x16x64xf32>
  return %0 : tensor<4x16x16x64xf32>
}
