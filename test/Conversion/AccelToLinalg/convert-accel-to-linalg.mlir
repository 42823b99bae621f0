// RUN: accel-opt %s --convert-accel-to-linalg --split-input-file | FileCheck %s

// The reference lowering: what each accel op becomes in linalg. Numerics are
// checked by test/Integration/CPU/linalg-reference.mlir.

// Without `accumulate`, C is zeroed first; one contraction in C's type
// (f32 here; a 16-bit float C accumulates in f32, below).
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xbf16>, %[[B:.+]]: tensor<8x16xbf16>, %[[C:.+]]: tensor<4x16xf32>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[C]] : tensor<4x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%[[ZERO]] : tensor<4x16xf32>)
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// C already filled (a frontend's zero-initialised output): the zero fill
// replaces that fill (fills its init), not a second pass over C.
// (The frontend's fill is left unused, for DCE.)
// CHECK-LABEL: func @matmul_filled_init
// CHECK: %[[E:.+]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<4x16xf32>)
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} outs(%[[ZERO]] : tensor<4x16xf32>)
func.func @matmul_filled_init(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %c = linalg.fill ins(%one : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %0 = accel.matmul ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Scaled i8, transposed B, accumulating: the exact i32 dot product, then
// C + sa * sb * dot in f32.
// CHECK-DAG: #[[$BT:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @matmul_i8_scaled
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xi8>, %[[B:.+]]: tensor<16x8xi8>, %[[SA:.+]]: f32, %[[SB:.+]]: f32, %[[C:.+]]: tensor<4x16xf32>)
// CHECK: %[[DOT0:.+]] = linalg.fill ins(%{{.+}} : i32) outs(%{{.+}} : tensor<4x16xi32>)
// CHECK: %[[DOT:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #[[$BT]], #{{.+}}]{{.*}} outs(%[[DOT0]] : tensor<4x16xi32>)
// CHECK: arith.extsi
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: %[[S:.+]] = arith.mulf %[[SA]], %[[SB]] : f32
// CHECK: linalg.generic {{.+}} ins(%[[DOT]] : tensor<4x16xi32>) outs(%[[C]] : tensor<4x16xf32>)
// CHECK: %[[D:.+]] = arith.sitofp
// CHECK: %[[P:.+]] = arith.mulf %[[S]], %[[D]]
// CHECK: arith.addf %{{.+}}, %[[P]]
func.func @matmul_i8_scaled(%a: tensor<4x8xi8>, %b: tensor<16x8xi8>, %sa: f32, %sb: f32, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<4x8xi8>, tensor<16x8xi8>) scales(%sa, %sb) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Softmax: max (NaN-propagating), sum of exp(x - max), quotient; -inf rows
// subtract 0 and divide to 0.
// CHECK-LABEL: func @softmax
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.cmpf oeq, %{{.+}}, %{{.+}} : f32
// CHECK: math.exp
// CHECK: linalg.generic {{.+}} iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: %[[Q:.+]] = arith.divf
// CHECK: arith.select %{{.+}}, %{{.+}}, %[[Q]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @softmax(%x: tensor<4x?xf16>, %y: tensor<4x?xf16>) -> tensor<4x?xf16> {
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x?xf16>) outs(%y : tensor<4x?xf16>) -> tensor<4x?xf16>
  return %0 : tensor<4x?xf16>
}

// -----

// Attention: GQA reads KV head h floordiv 4; the default scale 1/sqrt(64);
// the i1 mask and the bottom-right causal band (Skv - Sq = 20) become -inf.
// CHECK-DAG: #[[$KV:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d3, d4)>
// CHECK-DAG: #[[$MASK:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[$PV:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d4, d3)>
// CHECK-LABEL: func @attention
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$KV]], #{{.+}}]
// CHECK: %[[SCALE:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$MASK]], #{{.+}}]
// CHECK: arith.mulf %{{.+}}, %[[SCALE]]
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: arith.select %{{.+}}, %{{.+}}, %[[NEGINF]]
// CHECK: %[[DIAG:.+]] = arith.subi %c120, %c100 : index
// CHECK: %[[I:.+]] = linalg.index 2
// CHECK: %[[J:.+]] = linalg.index 3
// CHECK: %[[LIM:.+]] = arith.addi %[[I]], %[[DIAG]]
// CHECK: arith.cmpi sle, %[[J]], %[[LIM]]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$PV]], #{{.+}}]
// CHECK: arith.divf
func.func @attention(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>, %v: tensor<2x2x120x32xf16>, %m: tensor<100x120xi1>, %o: tensor<2x8x100x32xf32>) -> tensor<2x8x100x32xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>) mask(%m : tensor<100x120xi1>) outs(%o : tensor<2x8x100x32xf32>) -> tensor<2x8x100x32xf32>
  return %0 : tensor<2x8x100x32xf32>
}

// -----

// Sliding window and sequence lengths: each length is read per batch (map
// d0) and the band keeps j <= i + off, j > i + off - 16, j < kvlen, i < qlen
// with off = kvlen - qlen (the default diagonal, aligned per sequence).
// CHECK-DAG: #[[$LEN:.+]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func @attention_window_lengths
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #[[$LEN]], #[[$LEN]], #{{.+}}]
// CHECK: ^bb0(%{{.+}}: f32, %[[KVL:.+]]: i32, %[[QL:.+]]: i64, %{{.+}}: f32):
// Lengths are clamped to [-2^31, 2^31].
// CHECK: %[[KVI:.+]] = arith.index_cast %[[KVL]] : i32 to index
// CHECK: %[[KVC:.+]] = arith.maxsi %[[KVI]], %c-2147483648 : index
// CHECK: %[[KV:.+]] = arith.minsi %[[KVC]], %c2147483648 : index
// CHECK: %[[QQI:.+]] = arith.index_cast %[[QL]] : i64 to index
// CHECK: %[[QQC:.+]] = arith.maxsi %[[QQI]], %c-2147483648{{.*}} : index
// CHECK: %[[QQ:.+]] = arith.minsi %[[QQC]], %c2147483648{{.*}} : index
// CHECK: %[[OFF:.+]] = arith.subi %[[KV]], %[[QQ]] : index
// CHECK: %[[I:.+]] = linalg.index 2
// CHECK: %[[J:.+]] = linalg.index 3
// CHECK: %[[LIM:.+]] = arith.addi %[[I]], %[[OFF]]
// CHECK: %[[C1:.+]] = arith.cmpi sle, %[[J]], %[[LIM]]
// CHECK: %[[W:.+]] = arith.constant 16 : index
// CHECK: %[[LOW:.+]] = arith.subi %[[LIM]], %[[W]]
// CHECK: %[[C2:.+]] = arith.cmpi sgt, %[[J]], %[[LOW]]
// CHECK: %[[A1:.+]] = arith.andi %[[C1]], %[[C2]]
// CHECK: %[[C3:.+]] = arith.cmpi slt, %[[J]], %[[KV]]
// CHECK: %[[A2:.+]] = arith.andi %[[A1]], %[[C3]]
// CHECK: %[[C4:.+]] = arith.cmpi slt, %[[I]], %[[QQ]]
// CHECK: %[[A3:.+]] = arith.andi %[[A2]], %[[C4]]
// CHECK: arith.select %[[A3]]
func.func @attention_window_lengths(%q: tensor<2x4x64x32xf32>, %k: tensor<2x4x80x32xf32>, %v: tensor<2x4x80x32xf32>, %kvl: tensor<2xi32>, %ql: tensor<2xi64>, %o: tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32> {
  %0 = accel.attention causal window(16) ins(%q, %k, %v : tensor<2x4x64x32xf32>, tensor<2x4x80x32xf32>, tensor<2x4x80x32xf32>) kv_lengths(%kvl : tensor<2xi32>) q_lengths(%ql : tensor<2xi64>) outs(%o : tensor<2x4x64x32xf32>) -> tensor<2x4x64x32xf32>
  return %0 : tensor<2x4x64x32xf32>
}

// -----

// linalg.softmax that accel-raise left (f64): upstream's decomposition, in
// f64, over the given dimension.
// CHECK-LABEL: func @linalg_softmax_f64
// CHECK-NOT: linalg.softmax
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]
// CHECK: arith.maxnumf %{{.+}}, %{{.+}} : f64
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}}ins(%{{.+}}, %[[MAX]] : tensor<5x3xf64>, tensor<3xf64>)
// CHECK: math.exp %{{.+}} : f64
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}}ins(%[[EXP]] : tensor<5x3xf64>)
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}}ins(%[[EXP]], %[[SUM]] : tensor<5x3xf64>, tensor<3xf64>)
// CHECK: arith.divf %{{.+}}, %{{.+}} : f64
// CHECK-NOT: linalg.softmax
func.func @linalg_softmax_f64(%x: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %e = tensor.empty() : tensor<5x3xf64>
  %y = linalg.softmax dimension(0) ins(%x : tensor<5x3xf64>) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
  return %y : tensor<5x3xf64>
}

// -----

// A 16-bit float C (bf16, f16) accumulates in f32: C widened, the
// contraction in f32, one rounding back to C's type.
// CHECK-LABEL: func @bf16_c
// CHECK-SAME: (%[[A:.+]]: tensor<4x8xbf16>, %[[B:.+]]: tensor<8x16xbf16>, %[[C:.+]]: tensor<4x16xbf16>)
// CHECK: %[[WIDE:.+]] = linalg.generic {{.*}} ins(%[[C]] : tensor<4x16xbf16>) outs(%{{.+}} : tensor<4x16xf32>)
// CHECK:   arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}} ins(%[[A]], %[[B]] : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%[[WIDE]] : tensor<4x16xf32>)
// CHECK:   arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK:   arith.addf %{{.+}}, %{{.+}} : f32
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[DOT]] : tensor<4x16xf32>) outs(%[[C]] : tensor<4x16xbf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to bf16
// CHECK: return %[[R]]
func.func @bf16_c(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>, %c: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<4x8xbf16>, tensor<8x16xbf16>) outs(%c : tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

// CHECK-LABEL: func @f16_c
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK: %[[DOT:.+]] = linalg.generic {{.*}} outs(%[[ZERO]] : tensor<8x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[DOT]] : tensor<8x4xf32>) outs(%{{.+}} : tensor<8x4xf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to f16
func.func @f16_c(%a: tensor<8x16xf16>, %b: tensor<4x16xf16>) -> tensor<8x4xf16> {
  %c = tensor.empty() : tensor<8x4xf16>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<8x16xf16>, tensor<4x16xf16>) outs(%c : tensor<8x4xf16>) -> tensor<8x4xf16>
  return %0 : tensor<8x4xf16>
}
