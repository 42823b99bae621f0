// The roofline of a paged decode attention: each sequence reads its own
// pages once (the table's N * T = 8192 tokens bound the run-time lengths;
// the pool's page count does not matter and may be dynamic): K and V
// 8 KV heads x 8192 x (128 + 128) x 2 bytes = 33.55 MB, with Q, O, the
// table and the lengths 33.58 MB; 32 heads x 8192 keys x (4 x 128 + 5)
// FLOPs = 135.53 MFLOP: memory-bound. Its blocks come from the
// configuration stage.
// RUN: accel-opt %s --accel-roofline="target=x86-64-sapphirerapids report=-" -o /dev/null 2>&1 | FileCheck %s
// CHECK: remark: roofline on x86-64-sapphirerapids: 135.53 MFLOP, 33.58 MB, 4.0 FLOP/B, memory-bound
// CHECK: note: no tiles on x86-64-sapphirerapids: an accel.paged_attention takes its blocks (pages per step, splits, KV heads per task) from the CPU configuration stage (accel-cpu-configure), not from accel-tile
// CHECK: 0    accel.paged_attention   135.53 MFLOP       33.58 MB         4.0 memory
func.func @decode(%q: tensor<1x32x1x128xbf16>, %kc: tensor<?x16x8x128xbf16>,
                  %vc: tensor<?x16x8x128xbf16>, %bt: tensor<1x512xi32>,
                  %len: tensor<1xi32>) -> tensor<1x32x1x128xf32> {
  %o = tensor.empty() : tensor<1x32x1x128xf32>
  %r = accel.paged_attention
         ins(%q, %kc, %vc : tensor<1x32x1x128xbf16>, tensor<?x16x8x128xbf16>,
                            tensor<?x16x8x128xbf16>)
         block_table(%bt : tensor<1x512xi32>) kv_lengths(%len : tensor<1xi32>)
         outs(%o : tensor<1x32x1x128xf32>) -> tensor<1x32x1x128xf32>
  return %r : tensor<1x32x1x128xf32>
}
