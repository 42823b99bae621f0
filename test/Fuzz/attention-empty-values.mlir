// Found by accel-fuzz-structured (docs/reliability.md, "Fuzzing"): an
// attention whose values have no columns (Dv = 0, valid IR: the output is
// empty) did not compile for the CPU with FlashAttention-2
// (accel-decompose-attention, the default): its empty [Sq, 0] tiles made
// slices that do not verify ("offset 3 is out-of-bounds: 0 >= 0"). It now
// leaves empty outputs to the reference lowering, as it did for Hq = 0 and
// Sq = 0. accel-run checks that each compiles, runs and writes nothing.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options='attention-tile-q=1 attention-tile-kv=2 vectorize=0' | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=decompose-attention=0 | FileCheck %s

// CHECK-LABEL: @dv_0
// CHECK: PASS
// CHECK-LABEL: @d_0_dv_0_masked_varlen
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

func.func @dv_0(%q: tensor<1x1x3x4xf32>, %k: tensor<1x1x5x4xf32>, %v: tensor<1x1x5x0xf32>, %o: tensor<1x1x3x0xf32>) -> tensor<1x1x3x0xf32> {
  %r = accel.attention ins(%q, %k, %v : tensor<1x1x3x4xf32>, tensor<1x1x5x4xf32>, tensor<1x1x5x0xf32>) outs(%o : tensor<1x1x3x0xf32>) -> tensor<1x1x3x0xf32>
  return %r : tensor<1x1x3x0xf32>
}

// The fuzzer's program: D = Dv = 0, GQA, an additive mask, both lengths.
func.func @d_0_dv_0_masked_varlen(%q: tensor<1x4x32x0xf16>, %k: tensor<1x2x5x0xf16>, %v: tensor<1x2x5x0xf16>, %mask: tensor<1x4x1x1xf32>, %kv_lengths: tensor<1xi32>, %q_lengths: tensor<1xi64>, %o: tensor<1x4x32x0xbf16>) -> tensor<1x4x32x0xbf16> {
  %r = accel.attention ins(%q, %k, %v : tensor<1x4x32x0xf16>, tensor<1x2x5x0xf16>, tensor<1x2x5x0xf16>) mask(%mask : tensor<1x4x1x1xf32>) kv_lengths(%kv_lengths : tensor<1xi32>) q_lengths(%q_lengths : tensor<1xi64>) outs(%o : tensor<1x4x32x0xbf16>) -> tensor<1x4x32x0xbf16>
  return %r : tensor<1x4x32x0xbf16>
}
