// Padded keys are never read: with key lengths 10 and 20 of 40, the
// program reads Q (1280 bytes), the lengths (8) and only the kept keys'
// K and V rows (2 heads x (10 + 20) keys x (16 + 24) f32: 9600 bytes):
// 10,888 bytes = 10.6 KiB (all 40 keys would be 26.6 KiB). With blocks of
// 16 keys the two blocks past sequence 0's length and the one past
// sequence 1's are skipped. (A NaN read at a padded key would not show in
// the result: the oracle lets attention rows with a non-finite V at a
// masked key be NaN, as FlashAttention's are.)
// RUN: accel-run %s --target=systolic --poison=3:0:10 --poison=3:1:20 | FileCheck %s --check-prefixes=CHECK,ONE
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="attention-tile-kv=16" --poison=3:0:10 --poison=3:1:20 | FileCheck %s --check-prefixes=CHECK,SKIP
// CHECK: DRAM 10.6 KiB read
// ONE-SAME: 240 instructions.
// SKIP-SAME: 188 instructions (132 more skipped).
// CHECK: accel-run: 1 of 1 functions passed

func.func @padded(%q: tensor<2x2x5x16xf32>, %k: tensor<2x2x40x16xf32>, %v: tensor<2x2x40x24xf32>, %len: tensor<2xi32>) -> tensor<2x2x5x24xf32> {
  %o = tensor.empty() : tensor<2x2x5x24xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x2x5x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x24xf32>) kv_lengths(%len : tensor<2xi32>) outs(%o : tensor<2x2x5x24xf32>) -> tensor<2x2x5x24xf32>
  return %0 : tensor<2x2x5x24xf32>
}
