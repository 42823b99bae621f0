// accel-scale-model: one device's roofline, then one process's part with
// its collectives over the catalogue's interconnect (ring algorithms).
// RUN: accel-opt %s -split-input-file --accel-scale-model="target=h100 report=-" -o /dev/null 2>/dev/null | FileCheck %s
// RUN: accel-opt %s -split-input-file --accel-scale-model="target=systolic-16x16 report=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOLINKS

// Row-parallel over 8 H100s (one NVLink domain): a 4 MiB f32 all-reduce puts
// 2 x 7/8 x 4 MiB on the wire; 7340032 B / 450 GB/s + 14 ring steps x 3 µs.
// CHECK: function	target	processes	one_device_s	compute_s	collectives	payload_bytes	wire_bytes	comm_s	step_s	speedup
// CHECK-NEXT: row	h100	8	6.4104e-05	8.0130e-06	1	4194304	7340032	5.8311e-05	6.6324e-05	0.967
// An all-gather of 8 local head blocks (8 KiB each): 7 x 8 KiB on the wire.
// CHECK-NEXT: gather	h100	8	{{.*}}	1	8192	57344	2.1127e-05
// NOLINKS: warning: accel-scale-model: systolic-16x16 has no interconnect figures in the catalogue; the bytes are predicted, not the communication time
// NOLINKS: row	systolic-16x16	8	{{.*}}	1	4194304	7340032	-	-	-
shard.grid @grid(shape = 8)
func.func @row(%x: tensor<1024x2048xf32>, %w: tensor<2048x1024xf32>) -> tensor<1024x1024xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<2048x1024xf32>
  %e = tensor.empty() : tensor<1024x1024xf32>
  %y = accel.matmul ins(%x, %wa : tensor<1024x2048xf32>, tensor<2048x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %r : tensor<1024x1024xf32>
  return %ya : tensor<1024x1024xf32>
}
func.func @gather(%q: tensor<1x8x64x32xf32>, %k: tensor<1x8x64x32xf32>, %v: tensor<1x8x64x32xf32>) -> tensor<1x8x64x32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qa = shard.shard %q to %s annotate_for_users : tensor<1x8x64x32xf32>
  %e = tensor.empty() : tensor<1x8x64x32xf32>
  %o = accel.attention ins(%qa, %k, %v : tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>, tensor<1x8x64x32xf32>) outs(%e : tensor<1x8x64x32xf32>) -> tensor<1x8x64x32xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %oa = shard.shard %o to %r : tensor<1x8x64x32xf32>
  return %oa : tensor<1x8x64x32xf32>
}

// -----

// 16 H100s are two NVLink domains: the all-reduce crosses the 50 GB/s NICs,
// 7864320 B / 50 GB/s + 30 steps x 3 µs.
// CHECK: row16	h100	16	{{.*}}	1	4194304	7864320	2.4729e-04
// A function without annotations is not modelled.
// CHECK-NOT: plain
shard.grid @grid(shape = 16)
func.func @row16(%x: tensor<1024x2048xf32>, %w: tensor<2048x1024xf32>) -> tensor<1024x1024xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %wa = shard.shard %w to %s annotate_for_users : tensor<2048x1024xf32>
  %e = tensor.empty() : tensor<1024x1024xf32>
  %y = accel.matmul ins(%x, %wa : tensor<1024x2048xf32>, tensor<2048x1024xf32>) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ya = shard.shard %y to %r : tensor<1024x1024xf32>
  return %ya : tensor<1024x1024xf32>
}
func.func @plain(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %y = accel.matmul ins(%x, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

