// RUN: accel-opt %s --accel-roofline="target=a100" -verify-diagnostics -o /dev/null
// RUN: not accel-opt %s --accel-roofline="target=h1000" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-UNKNOWN
// CHECK-UNKNOWN: error: accel-roofline: unknown target 'h1000'

// The A100 has no fp8: no estimate, said so.
func.func @f8_on_a100(%a: tensor<64x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: f32, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{roofline on a100: 'f8E4M3FN' is not supported by the target (peak 0)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>) scales(%s, %s) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// f32 on the A100 (19.5 TFLOP/s, 2039 GB/s): a softmax is memory-bound.
func.func @softmax(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // expected-note @+2 {{tiles on a100: block 8 (a warp per row: 256 threads); warp 1}}
  // expected-remark @+1 {{roofline on a100: 5.24 MFLOP, 8.39 MB, 0.6 FLOP/B, memory-bound (ridge 9.6 FLOP/B), predicted 4.11 us at 2.04 TB/s}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<1024x1024xf32>) outs(%y : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}
