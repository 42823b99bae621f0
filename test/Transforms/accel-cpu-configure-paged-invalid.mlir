// RUN: accel-opt %s -split-input-file --accel-cpu-configure -verify-diagnostics
// RUN: not accel-opt %s --accel-cpu-configure="paged-splits=-1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: accel-cpu-configure: paged-pages, paged-splits and paged-heads must not be negative (0: chosen)

// A paged attention runs as flash-decoding, not as another kernel.
func.func @kernel(%q: tensor<1x2x1x8xf32>, %kc: tensor<4x4x1x8xf32>, %vc: tensor<4x4x1x8xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>, %o: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  // expected-error @+1 {{cannot use cpu-flash on the CPU: a paged_attention takes cpu-paged-flash}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xf32>, tensor<4x4x1x8xf32>, tensor<4x4x1x8xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x8xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "cpu-flash", tile = [2, 2]>} -> tensor<1x2x1x8xf32>
  return %r : tensor<1x2x1x8xf32>
}
