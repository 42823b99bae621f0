// Found by accel-fuzz-structured (docs/reliability.md, "Fuzzing"): an
// attention with no heads at all, Hq = Hkv = 0 (the verifier takes it:
// Hq must be a multiple of Hkv, and 0 is), did not compile for the CPU:
// convert-accel-to-linalg refused Hkv = 0 before looking at Hq = 0, so
// the op "failed to legalize", with FlashAttention-2 (which leaves empty
// heads to that lowering) and with the reference lowering alike. The
// result is empty; accel-run checks that it compiles and runs.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s

// CHECK-LABEL: @no_heads
// CHECK: PASS
// CHECK-LABEL: @no_heads_masked
// CHECK: PASS
// CHECK-LABEL: @no_query_heads
// CHECK: PASS
// CHECK: accel-run: 3 of 3 functions passed

// The fuzzer's program: f8 Q/K/V, Sq = 11, Skv = 6, D = 3, Dv = 31.
func.func @no_heads(%q: tensor<1x0x11x3xf8E4M3FN>, %k: tensor<1x0x6x3xf8E4M3FN>, %v: tensor<1x0x6x31xf8E4M3FN>, %o: tensor<1x0x11x31xf32>) -> tensor<1x0x11x31xf32> {
  %r = accel.attention causal scale(-5.000000e-01) ins(%q, %k, %v : tensor<1x0x11x3xf8E4M3FN>, tensor<1x0x6x3xf8E4M3FN>, tensor<1x0x6x31xf8E4M3FN>) outs(%o : tensor<1x0x11x31xf32>) -> tensor<1x0x11x31xf32>
  return %r : tensor<1x0x11x31xf32>
}

// With a mask, lengths and a window, from an empty init.
func.func @no_heads_masked(%q: tensor<2x0x5x8xf16>, %k: tensor<2x0x7x8xf16>, %v: tensor<2x0x7x8xf16>, %m: tensor<5x7xi1>, %kvl: tensor<2xi32>) -> tensor<2x0x5x8xbf16> {
  %o = tensor.empty() : tensor<2x0x5x8xbf16>
  %r = accel.attention causal window(3) ins(%q, %k, %v : tensor<2x0x5x8xf16>, tensor<2x0x7x8xf16>, tensor<2x0x7x8xf16>) mask(%m : tensor<5x7xi1>) kv_lengths(%kvl : tensor<2xi32>) outs(%o : tensor<2x0x5x8xbf16>) -> tensor<2x0x5x8xbf16>
  return %r : tensor<2x0x5x8xbf16>
}

// Hq = 0 with Hkv > 0 compiled before too; kept next to the new case.
func.func @no_query_heads(%q: tensor<1x0x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x0x4x8xf32> {
  %o = tensor.empty() : tensor<1x0x4x8xf32>
  %r = accel.attention ins(%q, %k, %v : tensor<1x0x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) outs(%o : tensor<1x0x4x8xf32>) -> tensor<1x0x4x8xf32>
  return %r : tensor<1x0x4x8xf32>
}
