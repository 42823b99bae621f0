// accel.paged_attention's two lowerings (docs/decode-attention.md).
// Flash-decoding (accel-decompose-attention): the validity of each
// sequence's table and length first; the 4 query heads of each KV head
// packed into the rows of one [4, D] query tile; an scf.forall over
// (batch, group of KV heads, split); a step reads its pages where they lie through
// the block table (a page past the sequence's end is skipped, never read)
// and runs the online softmax; the combine weighs the splits by exp2(m_s - max m) and
// gives NaN to an invalid sequence. With index-failure-callee the function
// calls it when some sequence is invalid.
// RUN: accel-opt %s --accel-decompose-attention="pages=2 splits=3" | FileCheck %s
// RUN: accel-opt %s --accel-decompose-attention="pages=1 splits=1 index-failure-callee=on_bad_index" | FileCheck %s --check-prefix=CALL
// The reference lowering (convert-accel-to-linalg): the pages gathered
// into contiguous keys and values, then the accel.attention they define.
// RUN: accel-opt %s --convert-accel-to-linalg | FileCheck %s --check-prefix=REF
// One KV head a task: the forall runs the heads.
// RUN: accel-opt %s --accel-decompose-attention="pages=2 splits=3 heads=1" | FileCheck %s --check-prefix=HEADS
// HEADS: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 2, 3)
// Under 8 columns of P · V's tile (here 4), V is widened into a copy with
// the rows past the length zeroed and contracted by accel.matmul.
// RUN: accel-opt %s --accel-decompose-attention="pages=2 splits=3 pv-tile=4,4" | FileCheck %s --check-prefix=NARROW
// NARROW:      arith.cmpi slt, %{{.*}}, %{{.*}} : index
// NARROW:      arith.select
// NARROW:      accel.matmul accumulate ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<4x16xf32>)
// The config's mma outranks pv-tile: AVX2's 2 x 32, fitted to 2 x 16.
// RUN: accel-opt %s --accel-cpu-configure="features=avx2,fma" --accel-decompose-attention="pv-tile=4,4" | FileCheck %s --check-prefix=PVCONFIG
// PVCONFIG:     scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c2
// PVCONFIG:       scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c16
// PVCONFIG:         scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>) {
// PVCONFIG-NOT: accel.matmul
// A bad pv-tile is an error.
// RUN: not accel-opt %s --accel-decompose-attention="pv-tile=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADPV
// BADPV: error: accel-decompose-attention: pv-tile takes 2 positive sizes [rows, columns]
// A cpu-paged-flash config outranks the options.
// RUN: accel-opt %s --accel-cpu-configure="paged-pages=4 paged-splits=2" --accel-decompose-attention="pages=1 splits=1" | FileCheck %s --check-prefix=CONFIG

// CHECK-LABEL: func.func @decode
// The validity: lengths in [0, N * T] = [0, 96], pages in the pool.
// CHECK:       tensor.generate
// CHECK:         arith.cmpi sle, %{{.*}}, %c96
// CHECK:         scf.for
// CHECK:           tensor.extract %{{.*}} : tensor<2x6xi32>
// GQA packing: Q [2, 8, 1, 32] as [2, 2, 4, 32].
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] {{.*}} : tensor<2x8x1x32xf16> into tensor<2x2x4x1x32xf16>
// CHECK:       tensor.collapse_shape {{.*}} into tensor<2x2x4x32xf16>
// Three splits of the 3 steps of 2 pages; each page is read where it lies
// (a page past the sequence's end is skipped): the logits as dot products
// of each key row with each packed query row, then P · V page by page.
// The pools as buffers for the prefetches (read only: never copied).
// CHECK:       scf.forall (%[[B:.*]], %[[G:.*]], %[[S:.*]]) in (2, 1, 3)
// The pages that hold keys: ceil(length / 16).
// CHECK:         %[[USED:.*]] = arith.ceildivsi %{{.*}}, %c16{{.*}} : index
// CHECK:         %[[KB:.*]] = bufferization.to_buffer %arg1 read_only : tensor<8x16x2x32xf16> to memref<8x16x2x32xf16>
// CHECK:         %[[VB:.*]] = bufferization.to_buffer %arg2 read_only : tensor<8x16x2x16xf16> to memref<8x16x2x16xf16>
// CHECK:         scf.for
// Both KV heads of the task in turn on the step's pages.
// CHECK:           scf.for %{{.*}} = %c0{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               %[[PAGE:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[N:.*]]] : tensor<2x6xi32>
// CHECK:               tensor.extract_slice %arg1[%{{.*}}, 0, %[[HEAD:.*]], 0] [1, 16, 1, 32] [1, 1, 1, 1] : tensor<8x16x2x32xf16> to tensor<16x32xf16>
// The page a step (2 pages) ahead, the last one past the end, through the
// table; each key row prefetches its row there, same key and head: every
// 64-byte line of K (32 f16) and V (16 f16).
// CHECK:               %[[AHEAD:.*]] = arith.addi %[[N]], %c2{{.*}} : index
// CHECK:               %[[LAST:.*]] = arith.subi %[[USED]], %c1{{.*}} : index
// CHECK:               %[[CLAMPED:.*]] = arith.minsi %[[AHEAD]], %[[LAST]] : index
// CHECK:               %[[P2:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[CLAMPED]]] : tensor<2x6xi32>
// CHECK:               %[[P2I:.*]] = arith.index_cast %[[P2]] : i32 to index
// CHECK:               scf.for %[[J:.*]] = %{{.*}} to %c16
// CHECK-NEXT:            %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:            memref.prefetch %[[KB]][%[[P2I]], %[[J]], %[[HEAD]], %[[C0]]], read, locality<3>, data
// CHECK-NEXT:            %[[C0V:.*]] = arith.constant 0 : index
// CHECK-NEXT:            memref.prefetch %[[VB]][%[[P2I]], %[[J]], %[[HEAD]], %[[C0V]]], read, locality<3>, data
// CHECK-NOT:             memref.prefetch
// CHECK:                 vector.transfer_read {{.*}} : tensor<16x32xf16>, vector<32xf16>
// CHECK:                 arith.extf {{.*}} : vector<32xf16> to vector<32xf32>
// CHECK:                 scf.for
// CHECK:                   vector.reduction <add>, %{{.*}} fastmath<reassoc,contract> : vector<32xf32> into f32
// CHECK:                   tensor.insert
// CHECK:           math.exp2
// P · V on the page where it lies: the page's keys up to the length
// (min(len - 16 n, 16)); a register tile of the 4 rows x 16 columns (the
// default 4 x 64 fitted to Dv = 16), the accumulator's rows read once,
// each key's V row widened in registers and P's element broadcast.
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK:               %[[KEPT0:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK:               %[[KEPT:.*]] = arith.minsi %[[KEPT0]], %c16{{.*}} : index
// CHECK:               %[[VPAGE:.*]] = tensor.extract_slice %arg2[%{{.*}}, 0, %{{.*}}, 0] [1, 16, 1, 16] [1, 1, 1, 1] : tensor<8x16x2x16xf16> to tensor<16x16xf16>
// CHECK:               scf.for %{{.*}} = %c0{{.*}} to %c4{{.*}} step %c4
// CHECK:                 scf.for %[[C0:.*]] = %c0{{.*}} to %c16{{.*}} step %c16
// CHECK-COUNT-4:           vector.transfer_read %{{.*}} : tensor<4x16xf32>, vector<16xf32>
// CHECK:                   scf.for %[[J:.*]] = %c0{{.*}} to %[[KEPT]] step %c1{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK:                     vector.transfer_read %[[VPAGE]][%[[J]], %[[C0]]]{{.*}} : tensor<16x16xf16>, vector<16xf16>
// CHECK:                     arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK-COUNT-4:             vector.fma
// CHECK:                   vector.transfer_write
// CHECK-NOT:           accel.matmul
// CHECK:         scf.forall.in_parallel
// The combine over the splits.
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK:         arith.maximumf
// CHECK:       math.exp2
// CHECK:       math.exp2
// CHECK:       arith.constant 0x7FC00000 : f32
// CHECK:       tensor.collapse_shape {{.*}} into tensor<2x8x1x16xf32>
// CHECK-NOT:   accel.paged_attention

// CALL:        func.func private @on_bad_index()
// CALL-LABEL:  func.func @decode
// CALL:        linalg.generic {{.*}} iterator_types = ["reduction"]
// CALL:          arith.andi
// CALL:        scf.if
// CALL-NEXT:     func.call @on_bad_index() : () -> ()
// CALL:        scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 1, 1)

// REF-LABEL:   func.func @decode
// REF:         tensor.generate
// REF:         scf.for
// REF:           scf.for
// REF:             scf.if
// REF:               linalg.transpose ins(%{{.*}} : tensor<16x2x32xf16>) outs(%{{.*}} : tensor<2x16x32xf16>) permutation = [1, 0, 2]
// REF:               tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, 0, %{{.*}}, 0] [1, 2, 16, 32] [1, 1, 1, 1] : tensor<2x16x32xf16> into tensor<2x2x96x32xf16>
// The attention over the gathered keys (lowered by the same pass) and NaN
// for an invalid sequence.
// REF:         arith.select %{{.*}}, %{{.*}}, %c0_i32 : i32
// REF:         math.exp
// REF:         arith.constant 0x7FC00000 : f32
// REF-NOT:     accel.

// CONFIG:      scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (2, 1, 2)
func.func @decode(%q: tensor<2x8x1x32xf16>, %kc: tensor<8x16x2x32xf16>,
                  %vc: tensor<8x16x2x16xf16>, %bt: tensor<2x6xi32>,
                  %len: tensor<2xi32>) -> tensor<2x8x1x16xf32> {
  %o = tensor.empty() : tensor<2x8x1x16xf32>
  %r = accel.paged_attention
         ins(%q, %kc, %vc : tensor<2x8x1x32xf16>, tensor<8x16x2x32xf16>,
                            tensor<8x16x2x16xf16>)
         block_table(%bt : tensor<2x6xi32>) kv_lengths(%len : tensor<2xi32>)
         outs(%o : tensor<2x8x1x16xf32>) -> tensor<2x8x1x16xf32>
  return %r : tensor<2x8x1x16xf32>
}
