// Scratch values share DRAM buffers when their lives do not meet (from the
// first op that writes one to the last that reads it). Here a's life spans
// the chain (the last op reads it again), b's ends where c is written and
// c's where d is: d shares b's buffer, a and c keep their own (3 buffers
// for 4 values; a shared buffer is flat). A planner that ignored a's late read would give b a's
// buffer and the sum would read softmax(a) for a.
//
// RUN: accel-opt %s --accel-systolic-pipeline | FileCheck %s --check-prefix=PLAN
// PLAN: systolic.program @chain
// PLAN-SAME: #systolic.buffer<"tmp0", scratch 0, tensor<24x40xf32>>, #systolic.buffer<"tmp1", scratch 0, tensor<960xf32>>, #systolic.buffer<"tmp2", scratch 0, tensor<24x40xf32>>]
// PLAN-SAME: scratch_tensor_bytes = 15360
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 1 of 1 functions passed

#id = affine_map<(i, j) -> (i, j)>
func.func @chain(%x: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %e = tensor.empty() : tensor<24x40xf32>
  %a = accel.softmax dimension(1) ins(%x : tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %b = accel.softmax dimension(1) ins(%a : tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %c = accel.softmax dimension(1) ins(%b : tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %d = accel.softmax dimension(1) ins(%c : tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%d, %a : tensor<24x40xf32>, tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.subf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<24x40xf32>
  return %s : tensor<24x40xf32>
}
