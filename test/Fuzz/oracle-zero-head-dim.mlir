// Found by accel-fuzz-structured (docs/reliability.md, "Fuzzing"): the
// fp64 oracle's attention (lib/Reference/Reference.cpp) took &q.data[n] of
// an empty Q and K when the head dimension is D = 0 (valid IR: every logit
// is 0, so each row averages V): undefined behaviour that UBSan reports
// ("reference binding to null pointer") in the instrumented build that
// scripts/sanitize.sh runs this suite with; the normal build gave the right
// numbers by luck. Here each row of O is the mean of V's rows (scale 1).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s

// CHECK-LABEL: @d_0
// CHECK: result #0 tensor<1x2x3x4xf32>: {{.*}} -> PASS
// CHECK-LABEL: @d_0_causal_gqa
// CHECK: result #0 tensor<2x4x7x5xf16>: {{.*}} -> PASS
// CHECK: accel-run: 2 of 2 functions passed

func.func @d_0(%q: tensor<1x2x3x0xf32>, %k: tensor<1x2x5x0xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %o = tensor.empty() : tensor<1x2x3x4xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x2x3x0xf32>, tensor<1x2x5x0xf32>, tensor<1x2x5x4xf32>) outs(%o : tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %r : tensor<1x2x3x4xf32>
}

func.func @d_0_causal_gqa(%q: tensor<2x4x7x0xbf16>, %k: tensor<2x2x3x0xbf16>, %v: tensor<2x2x3x5xbf16>) -> tensor<2x4x7x5xf16> {
  %o = tensor.empty() : tensor<2x4x7x5xf16>
  %r = accel.attention causal ins(%q, %k, %v : tensor<2x4x7x0xbf16>, tensor<2x2x3x0xbf16>, tensor<2x2x3x5xbf16>) outs(%o : tensor<2x4x7x5xf16>) -> tensor<2x4x7x5xf16>
  return %r : tensor<2x4x7x5xf16>
}
