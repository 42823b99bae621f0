// Masked FlashAttention kernels (boolean and additive masks in broadcast
// shapes, with and without the causal band, GQA/MQA, remainders) run on an
// NVIDIA GPU against the fp64 oracle; --i1-zero-rows=1 makes the first mask
// row drop every key (those rows must be exactly 0). Unsupported without a
// GPU; the same kernels run in the CPU emulator in
// test/Conversion/AccelToGPU/emulate-attention-mask.mlir.
// REQUIRES: cuda
//
// RUN: accel-run %s --target=nvptx --i1-zero-rows=1 | FileCheck %s
// RUN: accel-run %s --target=nvptx --i1-density=0.3 --nvptx-pipeline-options="chip=sm_90a stages=3" | FileCheck %s
// CHECK: accel-run: 4 of 4 functions passed

func.func @bool_full(%q: tensor<1x2x77x64xf16>, %k: tensor<1x2x130x64xf16>, %v: tensor<1x2x130x64xf16>, %m: tensor<1x2x77x130xi1>) -> tensor<1x2x77x64xf32> {
  %o = tensor.empty() : tensor<1x2x77x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x77x64xf16>, tensor<1x2x130x64xf16>, tensor<1x2x130x64xf16>) mask(%m : tensor<1x2x77x130xi1>) outs(%o : tensor<1x2x77x64xf32>) -> tensor<1x2x77x64xf32>
  return %0 : tensor<1x2x77x64xf32>
}
func.func @add_bcast_causal(%q: tensor<2x4x70x32xbf16>, %k: tensor<2x2x90x32xbf16>, %v: tensor<2x2x90x32xbf16>, %m: tensor<70x1xf32>) -> tensor<2x4x70x32xbf16> {
  %o = tensor.empty() : tensor<2x4x70x32xbf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x70x32xbf16>, tensor<2x2x90x32xbf16>, tensor<2x2x90x32xbf16>) mask(%m : tensor<70x1xf32>) outs(%o : tensor<2x4x70x32xbf16>) -> tensor<2x4x70x32xbf16>
  return %0 : tensor<2x4x70x32xbf16>
}
func.func @add_bf16_keys(%q: tensor<1x2x16x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>, %m: tensor<1x1x1x200xbf16>) -> tensor<1x2x16x64xf32> {
  %o = tensor.empty() : tensor<1x2x16x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x16x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) mask(%m : tensor<1x1x1x200xbf16>) outs(%o : tensor<1x2x16x64xf32>) -> tensor<1x2x16x64xf32>
  return %0 : tensor<1x2x16x64xf32>
}
func.func @bool_heads_causal(%q: tensor<1x3x65x16xf16>, %k: tensor<1x1x65x16xf16>, %v: tensor<1x1x65x16xf16>, %m: tensor<3x65x65xi1>) -> tensor<1x3x65x16xf16> {
  %o = tensor.empty() : tensor<1x3x65x16xf16>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x3x65x16xf16>, tensor<1x1x65x16xf16>, tensor<1x1x65x16xf16>) mask(%m : tensor<3x65x65xi1>) outs(%o : tensor<1x3x65x16xf16>) -> tensor<1x3x65x16xf16>
  return %0 : tensor<1x3x65x16xf16>
}
