// RUN: accel-opt %s -split-input-file --accel-decompose-attention="tile-q=32 tile-kv=64" --canonicalize | FileCheck %s

// FlashAttention-2: Kᵀ once; an scf.forall over (batch, query head) pairs,
// each owning its [Sq, Dv] slice of O; a loop over query tiles; inside, a
// loop over key tiles carrying the running max, sum and accumulator (f32),
// both products as accel.matmul on tiles, exp2 with log2(e) in the scale.
// The score matrix exists one 32 x 64 tile at a time.
// CHECK-LABEL: func @mha
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x128x32xf16>, %[[K:.+]]: tensor<2x4x256x32xf16>, %[[V:.+]]: tensor<2x4x256x16xf16>, %[[O:.+]]: tensor<2x4x128x16xf32>)
// log2(e) / sqrt(32) = 0.2550348
// CHECK: arith.constant 0.25503{{[0-9]+}} : f32
// CHECK-NOT: tensor<2x4x128x256
// CHECK: %[[KT:.+]] = linalg.transpose ins(%[[K]] : tensor<2x4x256x32xf16>) outs(%{{.+}} : tensor<2x4x32x256xf16>) permutation = [0, 1, 3, 2]
// CHECK: scf.forall (%[[B:[^,]+]], %[[H:[^)]+]]) in (2, 4) shared_outs(%[[OUT:[^ ]+]] = %[[O]])
// CHECK: %[[HEAD:.+]] = tensor.extract_slice %[[OUT]][%[[B]], %[[H]], 0, 0] [1, 1, 128, 16] [1, 1, 1, 1] : tensor<2x4x128x16xf32> to tensor<128x16xf32>
// CHECK: scf.for %[[Q0:[^ ]+]] = %{{.+}} to %c128 step %c32 iter_args(%{{.+}} = %[[HEAD]])
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<2x4x128x32xf16> to tensor<32x32xf16>
// CHECK: scf.for %[[K0:[^ ]+]] = %{{.+}} to %c256 step %c64 iter_args(%{{[^ ]+}} = %{{.+}}, %{{[^ ]+}} = %{{.+}}, %{{[^ ]+}} = %{{.+}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: %[[KTILE:.+]] = tensor.extract_slice %[[KT]][%[[B]], %[[H]], 0, %[[K0]]] [1, 1, 32, 64] [1, 1, 1, 1] : tensor<2x4x32x256xf16> to tensor<32x64xf16>
// CHECK: accel.matmul ins(%[[QT]], %[[KTILE]] : tensor<32x32xf16>, tensor<32x64xf16>) outs(%{{.+}} : tensor<32x64xf32>)
// CHECK: arith.maximumf
// CHECK: math.exp2
// CHECK: math.exp2
// CHECK: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<32x64xf32>, tensor<64x16xf32>) outs(%{{.+}} : tensor<32x16xf32>)
// CHECK: scf.yield
// CHECK: arith.divf
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[%[[Q0]], 0] [32, 16] [1, 1]
// CHECK: scf.forall.in_parallel
// CHECK: tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[B]], %[[H]], 0, 0] [1, 1, 128, 16] [1, 1, 1, 1]
func.func @mha(%q: tensor<2x4x128x32xf16>, %k: tensor<2x4x256x32xf16>, %v: tensor<2x4x256x16xf16>, %o: tensor<2x4x128x16xf32>) -> tensor<2x4x128x16xf32> {
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x128x32xf16>, tensor<2x4x256x32xf16>, tensor<2x4x256x16xf16>) outs(%o : tensor<2x4x128x16xf32>) -> tensor<2x4x128x16xf32>
  return %0 : tensor<2x4x128x16xf32>
}

// -----

// Causal (Skv - Sq = 128): the key loop of a query tile stops after the last
// key its last query sees, rounded up to whole tiles (the rest of that tile
// is masked by index), so tiles above the diagonal are never visited. GQA
// (8 query heads, 2 KV heads) reads KV head h / 4.
// CHECK-LABEL: func @causal_gqa
// CHECK: scf.forall (%[[H:[^)]+]]) in (8)
// CHECK: %[[HK:.+]] = arith.divui %[[H]], %c4 : index
// CHECK: scf.for %[[Q0:[^ ]+]] = %{{.+}} to %c128 step %c32
// CHECK: arith.divui %{{.+}}, %c64 : index
// CHECK: %[[END:.+]] = arith.minsi %{{.+}}, %c256 : index
// CHECK: scf.for %[[K0:[^ ]+]] = %{{.+}} to %[[END]] step %c64
// CHECK: tensor.extract_slice %{{.+}}[0, %[[HK]], 0, %[[K0]]]
// CHECK: arith.cmpi sle
func.func @causal_gqa(%q: tensor<1x8x128x32xf32>, %k: tensor<1x2x256x32xf32>, %v: tensor<1x2x256x32xf32>, %o: tensor<1x8x128x32xf32>) -> tensor<1x8x128x32xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x128x32xf32>, tensor<1x2x256x32xf32>, tensor<1x2x256x32xf32>) outs(%o : tensor<1x8x128x32xf32>) -> tensor<1x8x128x32xf32>
  return %0 : tensor<1x8x128x32xf32>
}

// -----

// Dynamic shapes stay for the reference lowering.
// CHECK-LABEL: func @dynamic
// CHECK: accel.attention
func.func @dynamic(%q: tensor<1x1x?x8xf32>, %k: tensor<1x1x?x8xf32>, %o: tensor<1x1x?x8xf32>) -> tensor<1x1x?x8xf32> {
  %0 = accel.attention ins(%q, %k, %k : tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>) outs(%o : tensor<1x1x?x8xf32>) -> tensor<1x1x?x8xf32>
  return %0 : tensor<1x1x?x8xf32>
}
