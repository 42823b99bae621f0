// accel.paged_attention on an NVIDIA GPU against the fp64 oracle
// (PagedAttentionKernel.h: flash-decoding on the CUDA cores, splits and a
// combine kernel): Llama 3 8B's attention (32 query heads over 8 KV heads,
// D 128) decoding two sequences of up to 1024 keys in bf16 16-token pages;
// one sequence of up to 4096 keys over 2 KV heads (many splits); a causal
// speculative step of 4 queries in f16 with an i64 table; and f32 MHA.
// accel-run draws the tables from the whole pool and the lengths from
// [0, N * T]. Unsupported without a GPU; bench/gpu/check.py records the
// lines below for a device run, and ptxas-catalogue.test assembles their
// kernels (test/Conversion/AccelToGPU/emulate-paged-attention.mlir
// checks the same kernels through the emulator).
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx | FileCheck %s
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="chip=sm_90a" | FileCheck %s
// CHECK: accel-run: 4 of 4 functions passed

func.func @llama_decode_bf16(%q: tensor<2x32x1x128xbf16>, %kc: tensor<160x16x8x128xbf16>, %vc: tensor<160x16x8x128xbf16>, %bt: tensor<2x64xi32>, %len: tensor<2xi32>) -> tensor<2x32x1x128xbf16> {
  %o = tensor.empty() : tensor<2x32x1x128xbf16>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<2x32x1x128xbf16>, tensor<160x16x8x128xbf16>, tensor<160x16x8x128xbf16>) block_table(%bt : tensor<2x64xi32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x32x1x128xbf16>) -> tensor<2x32x1x128xbf16>
  return %r : tensor<2x32x1x128xbf16>
}

func.func @long_context_bf16(%q: tensor<1x8x1x128xbf16>, %kc: tensor<300x16x2x128xbf16>, %vc: tensor<300x16x2x128xbf16>, %bt: tensor<1x256xi32>, %len: tensor<1xi32>) -> tensor<1x8x1x128xf32> {
  %o = tensor.empty() : tensor<1x8x1x128xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x8x1x128xbf16>, tensor<300x16x2x128xbf16>, tensor<300x16x2x128xbf16>) block_table(%bt : tensor<1x256xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x8x1x128xf32>) -> tensor<1x8x1x128xf32>
  return %r : tensor<1x8x1x128xf32>
}

func.func @speculative_f16(%q: tensor<1x32x4x128xf16>, %kc: tensor<80x16x8x128xf16>, %vc: tensor<80x16x8x128xf16>, %bt: tensor<1x64xi64>, %len: tensor<1xi64>) -> tensor<1x32x4x128xf16> {
  %o = tensor.empty() : tensor<1x32x4x128xf16>
  %r = accel.paged_attention causal ins(%q, %kc, %vc : tensor<1x32x4x128xf16>, tensor<80x16x8x128xf16>, tensor<80x16x8x128xf16>) block_table(%bt : tensor<1x64xi64>) kv_lengths(%len : tensor<1xi64>) outs(%o : tensor<1x32x4x128xf16>) -> tensor<1x32x4x128xf16>
  return %r : tensor<1x32x4x128xf16>
}

func.func @mha_f32(%q: tensor<4x8x1x64xf32>, %kc: tensor<40x32x8x64xf32>, %vc: tensor<40x32x8x64xf32>, %bt: tensor<4x10xi32>, %len: tensor<4xi32>) -> tensor<4x8x1x64xf32> {
  %o = tensor.empty() : tensor<4x8x1x64xf32>
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<4x8x1x64xf32>, tensor<40x32x8x64xf32>, tensor<40x32x8x64xf32>) block_table(%bt : tensor<4x10xi32>) kv_lengths(%len : tensor<4xi32>) outs(%o : tensor<4x8x1x64xf32>) -> tensor<4x8x1x64xf32>
  return %r : tensor<4x8x1x64xf32>
}
