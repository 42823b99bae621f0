// RUN: accel-opt %s -split-input-file --accel-decompose-attention="tile-q=32 tile-kv=64" --canonicalize | FileCheck %s

// FlashAttention-2: Kᵀ once, one contiguous [D, Tk] block per key tile
// ([B, Hkv, Skv / Tk, D, Tk]); an scf.forall over (batch, query head) pairs,
// each owning its [Sq, Dv] slice of O; a loop over query tiles; inside, a
// loop over key tiles carrying the running max, sum and accumulator (f32),
// both products as accel.matmul on tiles, exp2 with log2(e) in the scale.
// The positive scale is not a pass of its own: the row max of the raw
// logits is scaled (32 values), and exp2 takes fma(s, c, -m). The running
// max moves only when a row's tile max passes it by more than 8 (in log2
// units), and the accumulator is rescaled, in place, only when some row's
// max moved. The score matrix exists one 32 x 64 tile at a time.
// CHECK-LABEL: func @mha
// CHECK-SAME: (%[[Q:.+]]: tensor<2x4x128x32xf16>, %[[K:.+]]: tensor<2x4x256x32xf16>, %[[V:.+]]: tensor<2x4x256x16xf16>, %[[O:.+]]: tensor<2x4x128x16xf32>)
// CHECK-DAG: %[[MARGIN:.+]] = arith.constant 8.000000e+00 : f32
// log2(e) / sqrt(32) = 0.2550348
// CHECK-DAG: %[[SCALE:.+]] = arith.constant 0.25503{{[0-9]+}} : f32
// CHECK-NOT: tensor<2x4x128x256
// CHECK: %[[KB:.+]] = tensor.expand_shape %[[K]] {{\[}}[0], [1], [2, 3], [4]] output_shape [2, 4, 4, 64, 32]
// CHECK: %[[KT:.+]] = linalg.transpose ins(%[[KB]] : tensor<2x4x4x64x32xf16>) outs(%{{.+}} : tensor<2x4x4x32x64xf16>) permutation = [0, 1, 2, 4, 3]
// CHECK: scf.forall (%[[B:[^,]+]], %[[H:[^)]+]]) in (2, 4) shared_outs(%[[OUT:[^ ]+]] = %[[O]])
// CHECK: %[[HEAD:.+]] = tensor.extract_slice %[[OUT]][%[[B]], %[[H]], 0, 0] [1, 1, 128, 16] [1, 1, 1, 1] : tensor<2x4x128x16xf32> to tensor<128x16xf32>
// CHECK: scf.for %[[Q0:[^ ]+]] = %{{.+}} to %c128 step %c32 iter_args(%{{.+}} = %[[HEAD]])
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[Q0]], 0] [1, 1, 32, 32] [1, 1, 1, 1] : tensor<2x4x128x32xf16> to tensor<32x32xf16>
// CHECK: scf.for %[[K0:[^ ]+]] = %{{.+}} to %c256 step %c64 iter_args(%[[M:[^ ]+]] = %{{.+}}, %{{[^ ]+}} = %{{.+}}, %[[ACC:[^ ]+]] = %{{.+}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x16xf32>)
// CHECK: %[[BLK:.+]] = arith.divui %[[K0]], %c64
// CHECK: %[[KTILE:.+]] = tensor.extract_slice %[[KT]][%[[B]], %[[H]], %[[BLK]], 0, 0] [1, 1, 1, 32, 64] [1, 1, 1, 1, 1] : tensor<2x4x4x32x64xf16> to tensor<32x64xf16>
// CHECK: %[[S:.+]] = accel.matmul ins(%[[QT]], %[[KTILE]] : tensor<32x32xf16>, tensor<32x64xf16>) outs(%{{.+}} : tensor<32x64xf32>)
// CHECK-NOT: linalg.generic {{.+}} ins(%[[S]] : tensor<32x64xf32>) outs(%{{.+}} : tensor<32x64xf32>)
// CHECK: %[[RAWMAX:.+]] = linalg.generic {{.+}} ins(%[[S]] : tensor<32x64xf32>) outs(%{{.+}} : tensor<32xf32>)
// CHECK: arith.maximumf
// CHECK: %[[TILEMAX:.+]] = linalg.generic {{.+}} ins(%[[RAWMAX]] : tensor<32xf32>)
// CHECK: arith.mulf %{{.+}}, %[[SCALE]]
// CHECK: %[[MNEW:.+]] = linalg.generic {{.+}} ins(%[[M]], %[[TILEMAX]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: %[[LIMIT:.+]] = arith.addf %[[OLD:.+]], %[[MARGIN]]
// CHECK: %[[GROWS:.+]] = arith.cmpf ogt, %[[NEW:.+]], %[[LIMIT]]
// CHECK: arith.select %[[GROWS]], %[[NEW]], %[[OLD]]
// CHECK: %[[FLAG:.+]] = linalg.generic {{.+}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>) outs(%{{.+}} : tensor<i1>)
// CHECK: arith.cmpf one
// CHECK: arith.ori
// CHECK: %[[MOVED:.+]] = tensor.extract %[[FLAG]][]
// P and its row sums in one generic (one pass over the tile): P written at
// every (row, key), the sum reduced over the keys.
// CHECK: %[[P:[^ ]+]]:2 = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[S]], %[[MNEW]] : tensor<32x64xf32>, tensor<32xf32>) outs(%{{.+}}, %{{.+}} : tensor<32x64xf32>, tensor<32xf32>)
// CHECK: %[[NEGM:.+]] = arith.negf
// CHECK: %[[ARG:.+]] = math.fma %{{.+}}, %[[SCALE]], %[[NEGM]]
// CHECK: %[[E:.+]] = math.exp2 %[[ARG]]
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %[[E]]
// CHECK: linalg.yield %[[E]], %[[SUM]]
// CHECK: %[[CORR:.+]] = linalg.generic {{.+}} ins(%[[M]], %[[MNEW]] : tensor<32xf32>, tensor<32xf32>)
// CHECK: math.exp2
// CHECK: %[[RESCALED:.+]] = scf.if %[[MOVED]] -> (tensor<32x16xf32>)
// CHECK: linalg.generic {{.+}} ins(%[[CORR]] : tensor<32xf32>) outs(%[[ACC]] : tensor<32x16xf32>)
// CHECK: } else {
// CHECK: scf.yield %[[ACC]]
// CHECK: accel.matmul accumulate ins(%[[P]]#0, %{{.+}} : tensor<32x64xf32>, tensor<64x16xf32>) outs(%[[RESCALED]] : tensor<32x16xf32>)
// CHECK: scf.yield %[[MNEW]]
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
// CHECK: %[[BLK:.+]] = arith.divui %[[K0]], %c64
// CHECK: tensor.extract_slice %{{.+}}[0, %[[HK]], %[[BLK]], 0, 0] [1, 1, 1, 32, 64]
// CHECK: tensor.extract_slice %{{.+}}[0, %[[HK]], %[[K0]], 0] [1, 1, 64, 32]
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

// -----

// Window and sequence lengths bound the key loop instead of masking whole
// tiles: per (batch, head) the lengths are read once and off = kvlen - qlen;
// the loop ends at min(kvlen, q0 + 32 + off) rounded up to a key tile (and
// Skv) and starts at max(q0 + off - (W - 1), 0) rounded down to a key tile;
// a query tile at or past qlen runs no key tile. Inside, the band predicate
// masks the partial tiles by index.
// CHECK-LABEL: func @window_lengths
// CHECK-SAME: (%{{.+}}: tensor<2x2x64x16xf32>, %{{.+}}: tensor<2x2x256x16xf32>, %[[KVL:.+]]: tensor<2xi32>, %[[QL:.+]]: tensor<2xi64>,
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C63:.+]] = arith.constant 63 : index
// CHECK-DAG: %[[C39:.+]] = arith.constant 39 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: scf.forall (%[[B:.+]], %{{.+}}) in (2, 2)
// CHECK: %[[KVE:.+]] = tensor.extract %[[KVL]][%[[B]]]
// CHECK: %[[KVI:.+]] = arith.index_cast %[[KVE]] : i32 to index
// CHECK: %[[KVC:.+]] = arith.maxsi %[[KVI]], %[[LO:.+]] : index
// CHECK: %[[KV:.+]] = arith.minsi %[[KVC]], %[[HI:.+]] : index
// CHECK: %[[QE:.+]] = tensor.extract %[[QL]][%[[B]]]
// CHECK: %[[QQI:.+]] = arith.index_cast %[[QE]] : i64 to index
// CHECK: %[[QQC:.+]] = arith.maxsi %[[QQI]], %[[LO]] : index
// CHECK: %[[QQ:.+]] = arith.minsi %[[QQC]], %[[HI]] : index
// CHECK: %[[OFF:.+]] = arith.subi %[[KV]], %[[QQ]] : index
// CHECK: scf.for %[[Q0:.+]] = %{{.+}} to %{{.+}} step %[[C32]]
// CHECK: %[[E0:.+]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[E1:.+]] = arith.addi %[[E0]], %[[C32]]
// CHECK: %[[E2:.+]] = arith.minsi %[[KV]], %[[E1]]
// CHECK: %[[E3:.+]] = arith.maxsi %[[E2]], %{{.+}}
// CHECK: %[[E4:.+]] = arith.addi %[[E3]], %[[C63]]
// CHECK: %[[E5:.+]] = arith.divui %[[E4]], %[[C64]]
// CHECK: %[[E6:.+]] = arith.muli %[[E5]], %[[C64]]
// CHECK: %[[END:.+]] = arith.minsi %[[E6]], %[[C256]]
// CHECK: %[[S0:.+]] = arith.subi %[[OFF]], %[[C39]]
// CHECK: %[[S1:.+]] = arith.addi %[[Q0]], %[[S0]]
// CHECK: %[[S2:.+]] = arith.maxsi %[[S1]], %{{.+}}
// CHECK: %[[S3:.+]] = arith.divui %[[S2]], %[[C64]]
// CHECK: %[[S4:.+]] = arith.muli %[[S3]], %[[C64]]
// CHECK: %[[START:.+]] = arith.minsi %[[S4]], %[[END]]
// CHECK: %[[PAST:.+]] = arith.cmpi sge, %[[Q0]], %[[QQ]]
// CHECK: %[[END2:.+]] = arith.select %[[PAST]], %[[START]], %[[END]]
// CHECK: scf.for %[[K0:.+]] = %[[START]] to %[[END2]] step %[[C64]]
// The positive scale is deferred, so the band's -inf goes straight into
// the raw logits (c · -inf = -inf).
// CHECK: accel.matmul
// CHECK-NOT: linalg.generic
// The tile is cut when its last key passes the first row's limit, its first
// key is at or below the last row's window bound (q0 + 32 + off - 41), it
// crosses kvlen, or its rows cross qlen; only then is it masked (in place).
// CHECK: %[[KEND:.+]] = arith.addi %[[K0]], %[[C64]]
// CHECK: %[[QEND:.+]] = arith.addi %[[Q0]], %[[C32]]
// CHECK: %[[FL:.+]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[FL1:.+]] = arith.addi %[[FL]], %c1
// CHECK: %[[CUT1:.+]] = arith.cmpi sgt, %[[KEND]], %[[FL1]]
// CHECK: %[[LL:.+]] = arith.addi %[[QEND]], %[[OFF]]
// CHECK: %[[LOW:.+]] = arith.subi %[[LL]], %c41
// CHECK: %[[CUT2:.+]] = arith.cmpi sle, %[[K0]], %[[LOW]]
// CHECK: %[[OR1:.+]] = arith.ori %[[CUT1]], %[[CUT2]]
// CHECK: %[[CUT3:.+]] = arith.cmpi sgt, %[[KEND]], %[[KV]]
// CHECK: %[[OR2:.+]] = arith.ori %[[OR1]], %[[CUT3]]
// CHECK: %[[CUT4:.+]] = arith.cmpi sgt, %[[QEND]], %[[QQ]]
// CHECK: %[[CUT:.+]] = arith.ori %[[OR2]], %[[CUT4]]
// CHECK: %[[S:.+]] = scf.if %[[CUT]]
// CHECK: linalg.generic {{.+}} outs(%{{.+}} : tensor<32x64xf32>)
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sgt
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: } else {
// CHECK: scf.yield
func.func @window_lengths(%q: tensor<2x2x64x16xf32>, %k: tensor<2x2x256x16xf32>, %kvl: tensor<2xi32>, %ql: tensor<2xi64>, %o: tensor<2x2x64x16xf32>) -> tensor<2x2x64x16xf32> {
  %0 = accel.attention causal window(40)
         ins(%q, %k, %k : tensor<2x2x64x16xf32>, tensor<2x2x256x16xf32>, tensor<2x2x256x16xf32>)
         kv_lengths(%kvl : tensor<2xi32>) q_lengths(%ql : tensor<2xi64>)
         outs(%o : tensor<2x2x64x16xf32>) -> tensor<2x2x64x16xf32>
  return %0 : tensor<2x2x64x16xf32>
}

// -----

// Sizes that the tiles do not divide are peeled, so every tile is static:
// whole query tiles in a loop to 96 and one 4-row tile after it; whole key
// tiles up to 64, then the 36-key remainder tile under an scf.if (taken when
// the tile's key range reaches past 64).
// Kᵀ: the whole key tile in blocks, the 36-key remainder on its own.
// CHECK-LABEL: func @peeled
// CHECK: linalg.transpose ins(%{{.+}} : tensor<1x1x1x64x16xf32>) outs(%{{.+}} : tensor<1x1x1x16x64xf32>) permutation = [0, 1, 2, 4, 3]
// CHECK: %[[REST:.+]] = tensor.extract_slice %{{.+}}[0, 0, 64, 0] [1, 1, 36, 16]
// CHECK: %[[RESTT:.+]] = linalg.transpose ins(%[[REST]] : tensor<1x1x36x16xf32>) outs(%{{.+}} : tensor<1x1x16x36xf32>) permutation = [0, 1, 3, 2]
// CHECK: scf.for %[[Q0:.+]] = %c0 to %c96 step %c32
// CHECK: scf.for %{{.+}} = %c0 to %{{.+}} step %c64
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<32x16xf32>, tensor<16x64xf32>)
// CHECK: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<32x64xf32>, tensor<64x16xf32>)
// CHECK: %[[REACH:.+]] = arith.cmpi sgt, %{{.+}}, %c64
// CHECK: scf.if %[[REACH]] -> (tensor<32xf32>, tensor<32x16xf32>)
// CHECK: tensor.extract_slice %[[RESTT]][0, 0, 0, 0] [1, 1, 16, 36]
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<32x16xf32>, tensor<16x36xf32>)
// CHECK: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<32x36xf32>, tensor<36x16xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[%[[Q0]], 0] [32, 16]
// CHECK: tensor.extract_slice %{{.+}}[0, 0, 96, 0] [1, 1, 4, 16]
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x64xf32>)
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<4x16xf32>, tensor<16x36xf32>)
// CHECK: tensor.insert_slice %{{.+}} into %{{.+}}[96, 0] [4, 16]
// CHECK-NOT: affine.min
func.func @peeled(%q: tensor<1x1x100x16xf32>, %k: tensor<1x1x100x16xf32>, %o: tensor<1x1x100x16xf32>) -> tensor<1x1x100x16xf32> {
  %0 = accel.attention causal ins(%q, %k, %k : tensor<1x1x100x16xf32>, tensor<1x1x100x16xf32>, tensor<1x1x100x16xf32>) outs(%o : tensor<1x1x100x16xf32>) -> tensor<1x1x100x16xf32>
  return %0 : tensor<1x1x100x16xf32>
}
