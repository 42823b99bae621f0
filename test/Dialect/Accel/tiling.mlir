// RUN: accel-opt %s -split-input-file --transform-interpreter --canonicalize | FileCheck %s

// TilingInterface on the accel ops, driven by the upstream transform op
// transform.structured.tile_using_for: the tiles' offsets and sizes, the
// remainder tile, and the rules each op adds (K tiles accumulate, GQA heads
// map to whole KV heads, the causal band keeps its place).

// M = 100 with tile 32 leaves a remainder tile of 4: sizes come from
// affine.min; K stays whole.
// CHECK-DAG: #[[$MREM:.+]] = affine_map<(d0) -> (-d0 + 100, 32)>
// CHECK-DAG: #[[$NREM:.+]] = affine_map<(d0) -> (-d0 + 50, 16)>
// CHECK-LABEL: func @matmul_mn
// CHECK-SAME: (%[[A:.+]]: tensor<100x64xf32>, %[[B:.+]]: tensor<64x50xf32>, %[[C:.+]]: tensor<100x50xf32>)
// CHECK-DAG: %[[C100:.+]] = arith.constant 100 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: scf.for %[[I:[^ ]+]] = %{{.+}} to %[[C100]] step %[[C32]] iter_args(%[[ACC0:.+]] = %[[C]])
// CHECK: scf.for %[[J:[^ ]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC1:.+]] = %[[ACC0]])
// CHECK-DAG: %[[MS:.+]] = affine.min #[[$MREM]](%[[I]])
// CHECK-DAG: %[[NS:.+]] = affine.min #[[$NREM]](%[[J]])
// CHECK-DAG: %[[AT:.+]] = tensor.extract_slice %[[A]][%[[I]], 0] [%[[MS]], 64] [1, 1]
// CHECK-DAG: %[[BT:.+]] = tensor.extract_slice %[[B]][0, %[[J]]] [64, %[[NS]]] [1, 1]
// CHECK-DAG: %[[CT:.+]] = tensor.extract_slice %[[ACC1]][%[[I]], %[[J]]] [%[[MS]], %[[NS]]] [1, 1]
// CHECK: %[[R:.+]] = accel.matmul ins(%[[AT]], %[[BT]] : tensor<?x64xf32>, tensor<64x?xf32>) outs(%[[CT]] : tensor<?x?xf32>)
// CHECK: tensor.insert_slice %[[R]] into %[[ACC1]][%[[I]], %[[J]]] [%[[MS]], %[[NS]]] [1, 1]
func.func @matmul_mn(%a: tensor<100x64xf32>, %b: tensor<64x50xf32>,
                     %c: tensor<100x50xf32>) -> tensor<100x50xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x50xf32>)
                    outs(%c : tensor<100x50xf32>) -> tensor<100x50xf32>
  return %0 : tensor<100x50xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [32, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Tiling K of a matmul without `accumulate`: every tile accumulates into the
// running C, and the first tile (offset 0) starts from zeros instead of the
// uninitialised C. K = 40 with tile 16 leaves a remainder of 8.
// CHECK-DAG: #[[$KREM:.+]] = affine_map<(d0) -> (-d0 + 40, 16)>
// CHECK-LABEL: func @matmul_k
// CHECK-SAME: (%[[A:.+]]: tensor<8x40xf32>, %[[B:.+]]: tensor<40x8xf32>, %[[C:.+]]: tensor<8x8xf32>)
// CHECK-DAG: %[[ZEROS:.+]] = arith.constant dense<0.000000e+00> : tensor<8x8xf32>
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK: scf.for %[[K:[^ ]+]] = %[[C0]] to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[C]])
// CHECK: %[[KS:.+]] = affine.min #[[$KREM]](%[[K]])
// CHECK-DAG: %[[AT:.+]] = tensor.extract_slice %[[A]][0, %[[K]]] [8, %[[KS]]] [1, 1]
// CHECK-DAG: %[[BT:.+]] = tensor.extract_slice %[[B]][%[[K]], 0] [%[[KS]], 8] [1, 1]
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[K]], %[[C0]] : index
// CHECK: %[[INIT:.+]] = arith.select %[[FIRST]], %[[ZEROS]], %[[ACC]] : tensor<8x8xf32>
// CHECK: accel.matmul accumulate ins(%[[AT]], %[[BT]] : tensor<8x?xf32>, tensor<?x8xf32>) outs(%[[INIT]] : tensor<8x8xf32>)
func.func @matmul_k(%a: tensor<8x40xf32>, %b: tensor<40x8xf32>,
                    %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<8x40xf32>, tensor<40x8xf32>)
                    outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// An accumulating matmul needs no zero tile: C is read by design.
// CHECK-LABEL: func @matmul_k_accumulate
// CHECK-NOT: arith.select
// CHECK: accel.matmul accumulate
func.func @matmul_k_accumulate(%a: tensor<8x40xf32>, %b: tensor<40x8xf32>,
                               %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<8x40xf32>, tensor<40x8xf32>)
                    outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %mm tile_sizes [0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Batched, B transposed ([batch, N, K]): the B tile is indexed (b, n, k).
// Loops: batch, M, N, K.
// CHECK-LABEL: func @matmul_batched_transpose_b
// CHECK-SAME: (%[[A:.+]]: tensor<3x16x24xbf16>, %[[B:.+]]: tensor<3x40x24xbf16>, %[[C:.+]]: tensor<3x16x40xf32>)
// CHECK: scf.for %[[BI:[^ ]+]] =
// CHECK: scf.for %[[NI:[^ ]+]] =
// CHECK-DAG: tensor.extract_slice %[[A]][%[[BI]], 0, 0] [1, 16, 24] [1, 1, 1]
// CHECK-DAG: tensor.extract_slice %[[B]][%[[BI]], %[[NI]], 0] [1, 8, 24] [1, 1, 1]
// CHECK: accel.matmul transpose_b ins(%{{.+}}, %{{.+}} : tensor<1x16x24xbf16>, tensor<1x8x24xbf16>) outs(%{{.+}} : tensor<1x16x8xf32>)
func.func @matmul_batched_transpose_b(%a: tensor<3x16x24xbf16>, %b: tensor<3x40x24xbf16>,
                                      %c: tensor<3x16x40xf32>) -> tensor<3x16x40xf32> {
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<3x16x24xbf16>, tensor<3x40x24xbf16>)
                    outs(%c : tensor<3x16x40xf32>) -> tensor<3x16x40xf32>
  return %0 : tensor<3x16x40xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %mm tile_sizes [1, 0, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Softmax tiles every dimension but the one it normalises.
// CHECK-LABEL: func @softmax_rows
// CHECK-SAME: (%[[X:.+]]: tensor<10x1000xf32>, %[[Y:.+]]: tensor<10x1000xf32>)
// CHECK: scf.for %[[R:[^ ]+]] =
// CHECK: %[[RS:.+]] = affine.min
// CHECK-DAG: %[[XT:.+]] = tensor.extract_slice %[[X]][%[[R]], 0] [%[[RS]], 1000] [1, 1]
// CHECK: accel.softmax dimension(1) ins(%[[XT]] : tensor<?x1000xf32>) outs(%{{.+}} : tensor<?x1000xf32>)
func.func @softmax_rows(%x: tensor<10x1000xf32>, %y: tensor<10x1000xf32>) -> tensor<10x1000xf32> {
  %0 = accel.softmax dimension(1) ins(%x : tensor<10x1000xf32>)
                     outs(%y : tensor<10x1000xf32>) -> tensor<10x1000xf32>
  return %0 : tensor<10x1000xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_for %op tile_sizes [4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// GQA (Hq = 8, Hkv = 2, group 4) tiled by 2 query heads: each tile reads the
// one KV head h floordiv 4. Sq = 100 tiled by 32 (remainder 4): Q, O and the
// [Sq, Skv] mask follow the query tile, K and V stay whole along Skv, and
// the causal band keeps its place: diagonal = Skv - Sq + m0 = 20 + m0.
// CHECK-DAG: #[[$SQREM:.+]] = affine_map<(d0) -> (-d0 + 100, 32)>
// CHECK-DAG: #[[$KVHEAD:.+]] = affine_map<(d0) -> (d0 floordiv 4)>
// CHECK-DAG: #[[$DIAG:.+]] = affine_map<(d0) -> (d0 + 20)>
// CHECK-LABEL: func @attention_gqa_causal
// CHECK-SAME: (%[[Q:.+]]: tensor<2x8x100x64xf16>, %[[K:.+]]: tensor<2x2x120x64xf16>, %[[V:.+]]: tensor<2x2x120x32xf16>, %[[M:.+]]: tensor<100x120xi1>, %[[O:.+]]: tensor<2x8x100x32xf32>)
// CHECK: scf.for %[[BI:[^ ]+]] =
// CHECK: scf.for %[[HI:[^ ]+]] =
// CHECK: scf.for %[[SI:[^ ]+]] =
// CHECK-DAG: %[[SS:.+]] = affine.min #[[$SQREM]](%[[SI]])
// CHECK-DAG: %[[KVH:.+]] = affine.apply #[[$KVHEAD]](%[[HI]])
// CHECK-DAG: %[[QT:.+]] = tensor.extract_slice %[[Q]][%[[BI]], %[[HI]], %[[SI]], 0] [1, 2, %[[SS]], 64] [1, 1, 1, 1]
// CHECK-DAG: %[[KT:.+]] = tensor.extract_slice %[[K]][%[[BI]], %[[KVH]], 0, 0] [1, 1, 120, 64] [1, 1, 1, 1]
// CHECK-DAG: %[[VT:.+]] = tensor.extract_slice %[[V]][%[[BI]], %[[KVH]], 0, 0] [1, 1, 120, 32] [1, 1, 1, 1]
// CHECK-DAG: %[[MT:.+]] = tensor.extract_slice %[[M]][%[[SI]], 0] [%[[SS]], 120] [1, 1]
// CHECK-DAG: %[[D:.+]] = affine.apply #[[$DIAG]](%[[SI]])
// CHECK: accel.attention causal diagonal(%[[D]]) ins(%[[QT]], %[[KT]], %[[VT]] : tensor<1x2x?x64xf16>, tensor<1x1x120x64xf16>, tensor<1x1x120x32xf16>) mask(%[[MT]] : tensor<?x120xi1>) outs(%{{.+}} : tensor<1x2x?x32xf32>)
func.func @attention_gqa_causal(%q: tensor<2x8x100x64xf16>, %k: tensor<2x2x120x64xf16>,
                                %v: tensor<2x2x120x32xf16>, %m: tensor<100x120xi1>,
                                %o: tensor<2x8x100x32xf32>) -> tensor<2x8x100x32xf32> {
  %0 = accel.attention causal
         ins(%q, %k, %v : tensor<2x8x100x64xf16>, tensor<2x2x120x64xf16>, tensor<2x2x120x32xf16>)
         mask(%m : tensor<100x120xi1>)
         outs(%o : tensor<2x8x100x32xf32>) -> tensor<2x8x100x32xf32>
  return %0 : tensor<2x8x100x32xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %op tile_sizes [1, 2, 32, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A head tile that is a multiple of the group (4 query heads, group 2) reads
// 2 KV heads; an explicit diagonal is shifted by the query offset; Dv tiles
// slice V and O only; a size-1 (broadcast) mask dimension stays whole.
// CHECK-DAG: #[[$KVHEAD:.+]] = affine_map<(d0) -> (d0 floordiv 2)>
// CHECK-DAG: #[[$SHIFT:.+]] = affine_map<(d0)[s0] -> (d0 + s0)>
// CHECK-LABEL: func @attention_heads_dv_diagonal
// CHECK-SAME: (%[[Q:.+]]: tensor<1x8x64x16xf32>, %[[K:.+]]: tensor<1x4x64x16xf32>, %[[V:.+]]: tensor<1x4x64x64xf32>, %[[M:.+]]: tensor<1x1x64x64xf32>, %[[DIAG:.+]]: index, %[[O:.+]]: tensor<1x8x64x64xf32>)
// CHECK: scf.for %[[HI:[^ ]+]] =
// CHECK: scf.for %[[SI:[^ ]+]] =
// CHECK: scf.for %[[NI:[^ ]+]] =
// CHECK-DAG: %[[KVH:.+]] = affine.apply #[[$KVHEAD]](%[[HI]])
// CHECK-DAG: %[[KT:.+]] = tensor.extract_slice %[[K]][0, %[[KVH]], 0, 0] [1, 2, 64, 16] [1, 1, 1, 1]
// CHECK-DAG: %[[VT:.+]] = tensor.extract_slice %[[V]][0, %[[KVH]], 0, %[[NI]]] [1, 2, 64, 32] [1, 1, 1, 1]
// CHECK-DAG: %[[MT:.+]] = tensor.extract_slice %[[M]][0, 0, %[[SI]], 0] [1, 1, 16, 64] [1, 1, 1, 1]
// CHECK-DAG: %[[D:.+]] = affine.apply #[[$SHIFT]](%[[SI]])[%[[DIAG]]]
// CHECK: accel.attention causal diagonal(%[[D]]) scale(5.000000e-01) ins(%{{.+}}, %[[KT]], %[[VT]] : tensor<1x4x16x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x32xf32>) mask(%[[MT]] : tensor<1x1x16x64xf32>) outs(%{{.+}} : tensor<1x4x16x32xf32>)
func.func @attention_heads_dv_diagonal(%q: tensor<1x8x64x16xf32>, %k: tensor<1x4x64x16xf32>,
                                       %v: tensor<1x4x64x64xf32>, %m: tensor<1x1x64x64xf32>,
                                       %d: index, %o: tensor<1x8x64x64xf32>)
    -> tensor<1x8x64x64xf32> {
  %0 = accel.attention causal diagonal(%d) scale(0.5)
         ins(%q, %k, %v : tensor<1x8x64x16xf32>, tensor<1x4x64x16xf32>, tensor<1x4x64x64xf32>)
         mask(%m : tensor<1x1x64x64xf32>)
         outs(%o : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  return %0 : tensor<1x8x64x64xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:3 = transform.structured.tile_using_for %op tile_sizes [0, 4, 16, 32] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// scf.forall tiling uses the same interface; results go back through
// parallel_insert_slice at the tile's position.
// CHECK-DAG: #[[$OFF:.+]] = affine_map<(d0) -> (d0 * 32)>
// CHECK-DAG: #[[$REM:.+]] = affine_map<(d0) -> (d0 * -32 + 100, 32)>
// CHECK-LABEL: func @matmul_forall
// CHECK-SAME: (%[[A:.+]]: tensor<100x64xf32>, %[[B:.+]]: tensor<64x50xf32>, %[[C:.+]]: tensor<100x50xf32>)
// CHECK: scf.forall (%[[I:.+]], %[[J:.+]]) in (4, 4) shared_outs(%[[OUT:.+]] = %[[C]])
// CHECK-DAG: %[[OI:.+]] = affine.apply #[[$OFF]](%[[I]])
// CHECK-DAG: %[[MS:.+]] = affine.min #[[$REM]](%[[I]])
// CHECK-DAG: %[[AT:.+]] = tensor.extract_slice %[[A]][%[[OI]], 0] [%[[MS]], 64] [1, 1]
// CHECK: %[[R:.+]] = accel.matmul ins(%[[AT]], %{{.+}} : tensor<?x64xf32>, tensor<64x?xf32>)
// CHECK: tensor.parallel_insert_slice %[[R]] into %[[OUT]][%[[OI]], %{{.+}}] [%[[MS]], %{{.+}}] [1, 1]
func.func @matmul_forall(%a: tensor<100x64xf32>, %b: tensor<64x50xf32>,
                         %c: tensor<100x50xf32>) -> tensor<100x50xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x50xf32>)
                    outs(%c : tensor<100x50xf32>) -> tensor<100x50xf32>
  return %0 : tensor<100x50xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %mm = transform.structured.match ops{["accel.matmul"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.tile_using_forall %mm tile_sizes [32, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Tile-and-fuse: tiling the softmax rows pulls in the matching rows of the
// matmul that produces them (generateResultTileValue), with the whole of K
// and N.
// CHECK-LABEL: func @fuse_matmul_into_softmax
// CHECK-SAME: (%[[A:.+]]: tensor<100x64xf32>, %[[B:.+]]: tensor<64x50xf32>, %[[C:.+]]: tensor<100x50xf32>)
// CHECK: scf.for %[[R:[^ ]+]] =
// CHECK: %[[RS:.+]] = affine.min
// CHECK-DAG: %[[AT:.+]] = tensor.extract_slice %[[A]][%[[R]], 0] [%[[RS]], 64] [1, 1]
// CHECK: %[[MM:.+]] = accel.matmul ins(%[[AT]], %[[B]] : tensor<?x64xf32>, tensor<64x50xf32>) outs(%{{.+}} : tensor<?x50xf32>)
// CHECK: accel.softmax dimension(1) ins(%[[MM]] : tensor<?x50xf32>)
func.func @fuse_matmul_into_softmax(%a: tensor<100x64xf32>, %b: tensor<64x50xf32>,
                                    %c: tensor<100x50xf32>) -> tensor<100x50xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x50xf32>)
                    outs(%c : tensor<100x50xf32>) -> tensor<100x50xf32>
  %1 = accel.softmax dimension(1) ins(%0 : tensor<100x50xf32>)
                     outs(%c : tensor<100x50xf32>) -> tensor<100x50xf32>
  return %1 : tensor<100x50xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %sm = transform.structured.match ops{["accel.softmax"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l = transform.structured.fuse %sm tile_sizes [16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Sequence lengths follow the tile: both are sliced to the tile's batches;
// tiling the queries shifts q_lengths by the tile's first query (rows at or
// past the length stay padding) and moves an explicit diagonal by
// Sq - Sq_tile (the default diagonal needs no operand); the window stays.
// CHECK-DAG: #[[$DSHIFT:.+]] = affine_map<()[s0] -> (s0 + 48)>
// CHECK-LABEL: func @attention_lengths
// CHECK-SAME: (%[[Q:.+]]: tensor<4x2x64x16xf32>, %[[K:.+]]: tensor<4x2x80x16xf32>, %[[KVL:.+]]: tensor<4xi32>, %[[QL:.+]]: tensor<4xi64>, %[[DIAG:.+]]: index, %[[O:.+]]: tensor<4x2x64x16xf32>)
// CHECK: scf.for %[[BI:[^ ]+]] =
// CHECK: scf.for %[[SI:[^ ]+]] =
// CHECK-DAG: %[[KVLT:.+]] = tensor.extract_slice %[[KVL]][%[[BI]]] [2] [1]
// CHECK-DAG: %[[QLT:.+]] = tensor.extract_slice %[[QL]][%[[BI]]] [2] [1]
// CHECK: %[[QLS:.+]] = tensor.generate
// CHECK: ^bb0(%[[E:.+]]: index):
// CHECK: %[[RAW:.+]] = tensor.extract %[[QLT]][%[[E]]]
// CHECK: %[[POS:.+]] = arith.maxsi %[[RAW]], %c0_i64
// CHECK: %[[LEN:.+]] = arith.minsi %[[POS]], %c2147483648_i64
// CHECK: %[[OFF:.+]] = arith.index_cast %[[SI]] : index to i64
// CHECK: %[[SUB:.+]] = arith.subi %[[LEN]], %[[OFF]]
// CHECK: tensor.yield %[[SUB]]
// CHECK: %[[D:.+]] = affine.apply #[[$DSHIFT]]()[%[[DIAG]]]
// CHECK: accel.attention causal window(8) diagonal(%[[D]]) ins({{.+}} : tensor<2x2x16x16xf32>, tensor<2x2x80x16xf32>, tensor<2x2x80x16xf32>) kv_lengths(%[[KVLT]] : tensor<2xi32>) q_lengths(%[[QLS]] : tensor<2xi64>) outs({{.+}} : tensor<2x2x16x16xf32>)
func.func @attention_lengths(%q: tensor<4x2x64x16xf32>, %k: tensor<4x2x80x16xf32>,
                             %kvl: tensor<4xi32>, %ql: tensor<4xi64>, %d: index,
                             %o: tensor<4x2x64x16xf32>) -> tensor<4x2x64x16xf32> {
  %0 = accel.attention causal window(8) diagonal(%d)
         ins(%q, %k, %k : tensor<4x2x64x16xf32>, tensor<4x2x80x16xf32>, tensor<4x2x80x16xf32>)
         kv_lengths(%kvl : tensor<4xi32>) q_lengths(%ql : tensor<4xi64>)
         outs(%o : tensor<4x2x64x16xf32>) -> tensor<4x2x64x16xf32>
  return %0 : tensor<4x2x64x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match ops{["accel.attention"]} in %root : (!transform.any_op) -> !transform.any_op
    %t, %l:2 = transform.structured.tile_using_for %op tile_sizes [2, 0, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
