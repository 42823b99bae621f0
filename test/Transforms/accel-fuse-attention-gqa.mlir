// RUN: accel-opt %s -split-input-file --accel-fuse-attention --canonicalize | FileCheck %s

// GQA: accel.attention whose K and V repeat each key/value head r times
// (repeat_kv, as frontends write it) reads the unrepeated K and V: the
// op maps query head h to key/value head h / (Hq / Hkv) itself.

#rep = affine_map<(b, h, s, d) -> (b, h floordiv 2, s, d)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>

// CHECK-LABEL: func @floordiv
// CHECK-SAME: (%[[Q:.+]]: tensor<1x4x16x8xf32>, %[[K:.+]]: tensor<1x2x24x8xf32>, %[[V:.+]]: tensor<1x2x24x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: accel.attention causal ins(%[[Q]], %[[K]], %[[V]] : tensor<1x4x16x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>)
func.func @floordiv(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x4x16x8xf32> {
  %ke = tensor.empty() : tensor<1x4x24x8xf32>
  %kx = linalg.generic {indexing_maps = [#rep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x24x8xf32>) outs(%ke : tensor<1x4x24x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x24x8xf32>
  %vx = linalg.generic {indexing_maps = [#rep, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x2x24x8xf32>) outs(%ke : tensor<1x4x24x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x24x8xf32>
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %o = accel.attention causal ins(%q, %kx, %vx : tensor<1x4x16x8xf32>, tensor<1x4x24x8xf32>, tensor<1x4x24x8xf32>) outs(%e : tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// torch-mlir's repeat_kv: x[:, :, None].expand(B, Hkv, r, S, D).reshape(B,
// Hkv * r, S, D), as linalg.broadcast and as a generic over the unit
// dimension, each collapsed.

#b5 = affine_map<(b, h, r, s, d) -> (b, h, 0, s, d)>
#id5 = affine_map<(b, h, r, s, d) -> (b, h, r, s, d)>

// CHECK-LABEL: func @broadcast_collapse
// CHECK-SAME: (%[[Q:.+]]: tensor<2x6x8x16xbf16>, %[[K:.+]]: tensor<2x2x8x16xbf16>, %[[V:.+]]: tensor<2x2x8x16xbf16>
// CHECK-NOT: linalg.broadcast
// CHECK-NOT: linalg.generic
// CHECK: accel.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x6x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>)
func.func @broadcast_collapse(%q: tensor<2x6x8x16xbf16>, %k: tensor<2x2x8x16xbf16>, %v: tensor<2x2x8x16xbf16>) -> tensor<2x6x8x16xf32> {
  %ke = tensor.empty() : tensor<2x2x3x8x16xbf16>
  %kb = linalg.broadcast ins(%k : tensor<2x2x8x16xbf16>) outs(%ke : tensor<2x2x3x8x16xbf16>) dimensions = [2]
  %kx = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<2x2x3x8x16xbf16> into tensor<2x6x8x16xbf16>
  %v5 = tensor.expand_shape %v [[0], [1, 2], [3], [4]] output_shape [2, 2, 1, 8, 16] : tensor<2x2x8x16xbf16> into tensor<2x2x1x8x16xbf16>
  %vb = linalg.generic {indexing_maps = [#b5, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v5 : tensor<2x2x1x8x16xbf16>) outs(%ke : tensor<2x2x3x8x16xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    linalg.yield %a : bf16
  } -> tensor<2x2x3x8x16xbf16>
  %vx = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<2x2x3x8x16xbf16> into tensor<2x6x8x16xbf16>
  %e = tensor.empty() : tensor<2x6x8x16xf32>
  %o = accel.attention ins(%q, %kx, %vx : tensor<2x6x8x16xbf16>, tensor<2x6x8x16xbf16>, tensor<2x6x8x16xbf16>) outs(%e : tensor<2x6x8x16xf32>) -> tensor<2x6x8x16xf32>
  return %o : tensor<2x6x8x16xf32>
}

// -----

// Not folded: only K is repeated (V has all heads), the two are repeated
// by different factors, or the "repeat" computes (a scaled copy).

#rep2 = affine_map<(b, h, s, d) -> (b, h floordiv 2, s, d)>
#rep4 = affine_map<(b, h, s, d) -> (b, h floordiv 4, s, d)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>

// CHECK-LABEL: func @only_k
// CHECK: %[[KX:.+]] = linalg.generic
// CHECK: accel.attention ins(%{{.+}}, %[[KX]], %{{.+}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @only_k(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %ke = tensor.empty() : tensor<1x4x8x8xf32>
  %kx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %o = accel.attention ins(%q, %kx, %v : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @different_factors
// CHECK-COUNT-2: linalg.generic
// CHECK: accel.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @different_factors(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %ke = tensor.empty() : tensor<1x4x8x8xf32>
  %kx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %vx = linalg.generic {indexing_maps = [#rep4, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x1x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %o = accel.attention ins(%q, %kx, %vx : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// CHECK-LABEL: func @scaled_copy
// CHECK-COUNT-2: linalg.generic
// CHECK: accel.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @scaled_copy(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %ke = tensor.empty() : tensor<1x4x8x8xf32>
  %kx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %vx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %o = accel.attention ins(%q, %kx, %vx : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}

// -----

// A module split over a device grid keeps the repeat: accel-shard splits
// K's and V's heads as the queries' (folded, they would have to divide
// Hkv).

#rep2 = affine_map<(b, h, s, d) -> (b, h floordiv 2, s, d)>
#id = affine_map<(b, h, s, d) -> (b, h, s, d)>
shard.grid @grid(shape = 4)

// CHECK-LABEL: func @sharded
// CHECK-COUNT-2: linalg.generic
// CHECK: accel.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>)
func.func @sharded(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %ke = tensor.empty() : tensor<1x4x8x8xf32>
  %kx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%k : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %vx = linalg.generic {indexing_maps = [#rep2, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x2x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x8x8xf32>
  %o = accel.attention ins(%q, %kx, %vx : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) outs(%ke : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}
