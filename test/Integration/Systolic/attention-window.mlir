// Sliding-window attention (causal window(W): query i keeps keys
// i + off - W < j <= i + off) on the systolic array against the fp64
// oracle, with a static band: mask_lower on the strips the window's lower
// edge cuts, and the key blocks wholly below the window never loaded or
// computed (the cost is O(Sq·W), not O(Sq·Skv)). Prefill of 96 tokens with
// a 20-token window, decode-like rows against a long cache, GQA, bf16.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="attention-tile-q=16 attention-tile-kv=16" | FileCheck %s --check-prefixes=CHECK,SMALL
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=16 attention-tile-q=5 attention-tile-kv=8" | FileCheck %s
// With 16x16 blocks the 96-token prefill computes 6 query blocks x at most
// 3 key blocks (of 36 without the window): 15 key blocks, 16 MACs a key
// row ... the MAC count below is 15 blocks x 16 x 16 x (32 + 32) x 2 heads.
// SMALL: @prefill
// SMALL: 491520 MACs
// CHECK: accel-run: 3 of 3 functions passed

func.func @prefill(%q: tensor<1x2x96x32xf32>, %k: tensor<1x2x96x32xf32>, %v: tensor<1x2x96x32xf32>) -> tensor<1x2x96x32xf32> {
  %o = tensor.empty() : tensor<1x2x96x32xf32>
  %0 = accel.attention causal window(20) ins(%q, %k, %v : tensor<1x2x96x32xf32>, tensor<1x2x96x32xf32>, tensor<1x2x96x32xf32>) outs(%o : tensor<1x2x96x32xf32>) -> tensor<1x2x96x32xf32>
  return %0 : tensor<1x2x96x32xf32>
}

func.func @decode_rows(%q: tensor<1x4x3x64xbf16>, %k: tensor<1x2x200x64xbf16>, %v: tensor<1x2x200x64xbf16>) -> tensor<1x4x3x64xf32> {
  %o = tensor.empty() : tensor<1x4x3x64xf32>
  %0 = accel.attention causal window(33) ins(%q, %k, %v : tensor<1x4x3x64xbf16>, tensor<1x2x200x64xbf16>, tensor<1x2x200x64xbf16>) outs(%o : tensor<1x4x3x64xf32>) -> tensor<1x4x3x64xf32>
  return %0 : tensor<1x4x3x64xf32>
}

// A window of 1 (each query its own key) with an explicit diagonal.
func.func @window_one(%q: tensor<1x1x20x16xf32>, %k: tensor<1x1x30x16xf32>, %v: tensor<1x1x30x16xf32>) -> tensor<1x1x20x16xf32> {
  %d = arith.constant 4 : index
  %o = tensor.empty() : tensor<1x1x20x16xf32>
  %0 = accel.attention causal window(1) diagonal(%d) ins(%q, %k, %v : tensor<1x1x20x16xf32>, tensor<1x1x30x16xf32>, tensor<1x1x30x16xf32>) outs(%o : tensor<1x1x20x16xf32>) -> tensor<1x1x20x16xf32>
  return %0 : tensor<1x1x20x16xf32>
}
