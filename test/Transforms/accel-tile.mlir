// RUN: accel-opt %s --accel-tile | FileCheck %s --check-prefix=CPU
// RUN: accel-opt %s --accel-tile=target=h100 | FileCheck %s --check-prefix=H100
// RUN: accel-opt %s --accel-attach-target=name=a100 --accel-tile | FileCheck %s --check-prefix=A100
// RUN: accel-opt %s --accel-tile=target=systolic-16x16 | FileCheck %s --check-prefix=ARRAY
// RUN: accel-opt %s --accel-tile="matmul-outer=100,2000,30 attention-outer=4,100,0 softmax-outer=0 levels=1 forall=0" 2>/dev/null | FileCheck %s --check-prefix=GIVEN

// Tile sizes from the cost model (docs/tiling.md) of each target; the
// numbers behind them are in accel-roofline's notes
// (accel-roofline-tiles.mlir). Shapes are not multiples of the tiles: the
// last tile of each loop is smaller (affine.min).

// x86-64-avx512 (the default): 6 x 64 register tile (24 zmm accumulators),
// l1 24x64x64 in half of the 48 KiB L1D, l2 192x256x256 in half of the
// 1 MiB L2; the l2 M and N tiles form an scf.forall, K an scf.for inside.
// CPU-DAG: #[[$M_L2:.+]] = affine_map<(d0) -> (-d0 + 1000, 192)>
// CPU-DAG: #[[$K_L2:.+]] = affine_map<(d0) -> (-d0 + 1000, 256)>
// CPU-LABEL: func.func @gemm(
// CPU-SAME: %[[A:[^:]+]]: tensor<1000x1000xbf16>, %[[B:[^:]+]]: tensor<1000x1000xbf16>, %[[C:[^:]+]]: tensor<1000x1000xf32>
// A matmul that overwrites C accumulates into zeros, so K tiles add up.
// CPU: %[[ZEROS:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[C]] : tensor<1000x1000xf32>)
// CPU: scf.forall (%[[I:.+]], %[[J:.+]]) = (0, 0) to (1000, 1000) step (192, 256) shared_outs(%{{.+}} = %[[ZEROS]])
// CPU: %[[MT:.+]] = affine.min #[[$M_L2]](%[[I]])
// CPU: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %c256
// CPU: affine.min #[[$K_L2]](%[[K]])
// CPU: scf.for %{{.+}} = %{{.+}} to %[[MT]] step %c24
// CPU: scf.for {{.+}} step %c64
// CPU: scf.for {{.+}} step %c64
// CPU: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<?x?xbf16>, tensor<?x?xbf16>) outs(%{{.+}} : tensor<?x?xf32>)
// CPU: scf.forall.in_parallel

// On the H100, 3 stages of bf16 A 128x64 + B 64x256 (147456 B of the 232448 B a
// block can have), two warpgroups of 128x128 f32 accumulators (128
// registers per thread).
// H100-LABEL: func.func @gemm(
// H100: scf.forall ({{.+}}) = (0, 0) to (1000, 1000) step (128, 256)
// H100: scf.for {{.+}} step %c64
// H100-NOT: scf.for
// H100: scf.for {{.+}} to %{{.+}} step %c128
// H100: accel.matmul accumulate
// H100-NOT: scf.for
// H100: scf.forall.in_parallel

// A100 (from the module's accel.target): bf16 block 128x256x64, 8 warps of
// 64x64.
// A100-LABEL: func.func @gemm(
// A100: scf.forall ({{.+}}) = (0, 0) to (1000, 1000) step (128, 256)
// A100: scf.for {{.+}} step %c64
// A100: scf.for {{.+}} step %c64
// A100: scf.for {{.+}} step %c64
// A100: accel.matmul accumulate

// The 16x16 array: sram tiles of bf16 A 64x256 + B 256x128 (half of the
// 256 KiB scratchpad) and f32 C 64x128 (half of the 64 KiB accumulator),
// then one pass of the array per 16x16x16 tile.
// ARRAY-LABEL: func.func @gemm(
// ARRAY: scf.forall ({{.+}}) = (0, 0) to (1000, 1000) step (64, 128)
// ARRAY: scf.for {{.+}} step %c256
// ARRAY: scf.for {{.+}} step %c16
// ARRAY: scf.for {{.+}} step %c16
// ARRAY: scf.for {{.+}} step %c16
// ARRAY: accel.matmul accumulate ins({{.+}} : tensor<?x?xbf16>, tensor<?x?xbf16>)

// Given sizes, one level, scf.for only: N 2000 is clamped to the whole
// 1000 (no loop), M and K are tiled as given.
// GIVEN-DAG: #[[$K30:.+]] = affine_map<(d0) -> (-d0 + 1000, 30)>
// GIVEN-LABEL: func.func @gemm(
// GIVEN-NOT: scf.forall
// GIVEN: scf.for {{.+}} = %{{.+}} to %c1000 step %c100
// GIVEN: scf.for %[[K:.+]] = %{{.+}} to %c1000{{.*}} step %c30
// GIVEN: affine.min #[[$K30]](%[[K]])
// GIVEN: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<100x?xbf16>, tensor<?x1000xbf16>) outs(%{{.+}} : tensor<100x1000xf32>)
func.func @gemm(%a: tensor<1000x1000xbf16>, %b: tensor<1000x1000xbf16>, %c: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<1000x1000xbf16>, tensor<1000x1000xbf16>) outs(%c : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

// Attention is tiled over query heads and rows; keys and the head
// dimension stay whole (the FlashAttention decomposition tiles keys), and
// each query tile keeps the causal band through `diagonal`.
// CPU-LABEL: func.func @gqa(
// CPU: scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (8, 1000) step (1, 192)
// CPU: scf.for {{.+}} step %c24
// CPU: accel.attention causal diagonal(%{{.+}}) ins({{.+}} : tensor<1x1x?x64xbf16>, tensor<1x1x1000x64xbf16>, tensor<1x1x1000x64xbf16>)
// H100-LABEL: func.func @gqa(
// H100: scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (8, 1000) step (1, 128)
// H100: scf.for {{.+}} step %c64
// H100: accel.attention causal diagonal(
// A 4-head tile is the whole GQA group: it reads one key/value head.
// GIVEN-LABEL: func.func @gqa(
// GIVEN: scf.for {{.+}} = %{{.+}} to %c8 step %c4
// GIVEN: scf.for {{.+}} = %{{.+}} to %c1000 step %c100
// GIVEN: accel.attention causal diagonal(%{{.+}}) ins({{.+}} : tensor<1x4x100x64xbf16>, tensor<1x1x1000x64xbf16>, tensor<1x1x1000x64xbf16>)
func.func @gqa(%q: tensor<1x8x1000x64xbf16>, %k: tensor<1x2x1000x64xbf16>, %v: tensor<1x2x1000x64xbf16>, %o: tensor<1x8x1000x64xf32>) -> tensor<1x8x1000x64xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x1000x64xbf16>, tensor<1x2x1000x64xbf16>, tensor<1x2x1000x64xbf16>) outs(%o : tensor<1x8x1000x64xf32>) -> tensor<1x8x1000x64xf32>
  return %0 : tensor<1x8x1000x64xf32>
}

// Softmax rows: 128 rows of 333 f32 in and out in half of L2, 8 in half of
// L1D; on a GPU a warp per row and 8 rows (256 threads) per block. The
// softmax dimension is never tiled; leading dimensions are tiled by 1.
// CPU-LABEL: func.func @softmax(
// CPU: scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (4, 1000) step (1, 128)
// CPU: scf.for {{.+}} step %c8
// CPU: accel.softmax dimension(2) ins(%{{.+}} : tensor<1x?x333xf32>)
// H100-LABEL: func.func @softmax(
// H100: scf.forall (%{{.+}}, %{{.+}}) = (0, 0) to (4, 1000) step (1, 8)
// H100: scf.for {{.+}} = %{{.+}} to %c8 step %c1
// H100: accel.softmax dimension(2) ins(%{{.+}} : tensor<1x1x333xf32>)
// GIVEN-LABEL: func.func @softmax(
// GIVEN: scf.for {{.+}} = %{{.+}} to %c4 step %c1
// GIVEN-NOT: scf.for
// GIVEN: accel.softmax dimension(2) ins(%{{.+}} : tensor<1x1000x333xf32>)
func.func @softmax(%x: tensor<4x1000x333xf32>, %y: tensor<4x1000x333xf32>) -> tensor<4x1000x333xf32> {
  %0 = accel.softmax dimension(2) ins(%x : tensor<4x1000x333xf32>) outs(%y : tensor<4x1000x333xf32>) -> tensor<4x1000x333xf32>
  return %0 : tensor<4x1000x333xf32>
}

// Dynamic sizes: loops run to tensor.dim, tiles are the model's for an
// unknown (large) problem; an accumulating matmul needs no fill.
// CPU-LABEL: func.func @dynamic(
// CPU-NOT: linalg.fill
// CPU: %[[M:.+]] = tensor.dim %{{.+}}, %c0
// CPU: %[[N:.+]] = tensor.dim %{{.+}}, %c1
// CPU: scf.forall ({{.+}}) = (0, 0) to (%[[M]], %[[N]]) step (192, 256)
// CPU: accel.matmul accumulate
// GIVEN-LABEL: func.func @dynamic(
// GIVEN: scf.for {{.+}} step %c100
// GIVEN: scf.for {{.+}} step %c2000
// GIVEN: scf.for {{.+}} step %c30
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// Small problems fit whole: nothing to tile.
// CPU-LABEL: func.func @small(
// CPU-NOT: scf.
// CPU: accel.matmul ins
// CPU-NOT: scf.
// CPU: return
func.func @small(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}
