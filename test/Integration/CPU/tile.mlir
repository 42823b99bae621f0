// accel-tile's tiles run through accel-cpu-pipeline and are checked against
// the fp64 oracle, which reads the untiled functions (--pre-passes tiles
// only what is compiled). Shapes are not multiples of the tiles in any
// dimension, so every level has a smaller last tile (outputs are NaN-filled
// before the run; a missed tile fails). Tiles: the cost model's on this
// machine (x86-64-avx512), given ones with remainders at both levels
// (the exact tier: tiled K sums stay bit-exact), an A100's block / warp
// tiles and the systolic array's, scf.for instead of scf.forall, and two
// OpenMP threads over the forall.
// RUN: accel-run %s --repeat=0 --i1-zero-rows=2 --pre-passes=accel-tile | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact --pre-passes='accel-tile{matmul-outer=32,48,20 matmul-inner=8,16,8 attention-outer=2,24,0 attention-inner=1,7,0 softmax-outer=24 softmax-inner=5}' | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=3 --pre-passes='accel-tile{target=a100}' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=4 --i1-zero-rows=1 --pre-passes='accel-tile{target=systolic-16x16 forall=0}' | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=5 --num-threads=2 --pre-passes='accel-tile{matmul-outer=64,64,0 levels=1}' | FileCheck %s
// The functions are tiled (not left alone) with the model's sizes:
// RUN: accel-opt %s --accel-tile | FileCheck %s --check-prefix=TILED

// CHECK-LABEL: @mm_100x90x70
// CHECK: PASS
// CHECK-LABEL: @mm_457x330x515
// CHECK: PASS
// CHECK-LABEL: @mm_batched_transposed_accumulate
// CHECK: PASS
// CHECK-LABEL: @mm_bf16
// CHECK: PASS
// CHECK-LABEL: @mm_i8
// CHECK: PASS
// CHECK-LABEL: @attention_causal_gqa
// CHECK: PASS
// CHECK-LABEL: @attention_mask
// CHECK: PASS
// CHECK-LABEL: @softmax_rows
// CHECK: PASS
// CHECK-LABEL: @softmax_dim0
// CHECK: PASS
// CHECK: accel-run: 9 of 9 functions passed

// TILED-LABEL: func.func @mm_100x90x70
// TILED: linalg.fill
// TILED: scf.for {{.+}} step %c24
// TILED: scf.for {{.+}} step %c32
// TILED: accel.matmul accumulate
// TILED-LABEL: func.func @mm_457x330x515
// TILED: scf.forall ({{.+}}) = (0, 0) to (457, 515) step (192, 128)
// TILED-LABEL: func.func @attention_causal_gqa
// TILED: scf.forall
// TILED: accel.attention causal diagonal(
// TILED-LABEL: func.func @softmax_rows
// TILED: scf.forall
// TILED: accel.softmax dimension(2)

func.func @mm_100x90x70(%a: tensor<100x70xf32>, %b: tensor<70x90xf32>) -> tensor<100x90xf32> {
  %c = tensor.empty() : tensor<100x90xf32>
  %0 = accel.matmul ins(%a, %b : tensor<100x70xf32>, tensor<70x90xf32>) outs(%c : tensor<100x90xf32>) -> tensor<100x90xf32>
  return %0 : tensor<100x90xf32>
}

func.func @mm_457x330x515(%a: tensor<457x330xf32>, %b: tensor<330x515xf32>) -> tensor<457x515xf32> {
  %c = tensor.empty() : tensor<457x515xf32>
  %0 = accel.matmul ins(%a, %b : tensor<457x330xf32>, tensor<330x515xf32>) outs(%c : tensor<457x515xf32>) -> tensor<457x515xf32>
  return %0 : tensor<457x515xf32>
}

func.func @mm_batched_transposed_accumulate(%a: tensor<3x37x41xf32>, %b: tensor<3x29x41xf32>, %c: tensor<3x37x29xf32>) -> tensor<3x37x29xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<3x37x41xf32>, tensor<3x29x41xf32>) outs(%c : tensor<3x37x29xf32>) -> tensor<3x37x29xf32>
  return %0 : tensor<3x37x29xf32>
}

func.func @mm_bf16(%a: tensor<67x97xbf16>, %b: tensor<97x131xbf16>) -> tensor<67x131xf32> {
  %c = tensor.empty() : tensor<67x131xf32>
  %0 = accel.matmul ins(%a, %b : tensor<67x97xbf16>, tensor<97x131xbf16>) outs(%c : tensor<67x131xf32>) -> tensor<67x131xf32>
  return %0 : tensor<67x131xf32>
}

func.func @mm_i8(%a: tensor<45x300xi8>, %b: tensor<300x77xi8>) -> tensor<45x77xi32> {
  %c = tensor.empty() : tensor<45x77xi32>
  %0 = accel.matmul ins(%a, %b : tensor<45x300xi8>, tensor<300x77xi8>) outs(%c : tensor<45x77xi32>) -> tensor<45x77xi32>
  return %0 : tensor<45x77xi32>
}

func.func @attention_causal_gqa(%q: tensor<2x4x77x32xf32>, %k: tensor<2x2x101x32xf32>, %v: tensor<2x2x101x32xf32>) -> tensor<2x4x77x32xf32> {
  %o = tensor.empty() : tensor<2x4x77x32xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<2x4x77x32xf32>, tensor<2x2x101x32xf32>, tensor<2x2x101x32xf32>) outs(%o : tensor<2x4x77x32xf32>) -> tensor<2x4x77x32xf32>
  return %0 : tensor<2x4x77x32xf32>
}

// The first two query rows have every key masked: exact zeros, in whichever
// tile they land.
func.func @attention_mask(%q: tensor<1x2x53x16xf32>, %k: tensor<1x2x40x16xf32>, %v: tensor<1x2x40x16xf32>, %m: tensor<1x1x53x40xi1>) -> tensor<1x2x53x16xf32> {
  %o = tensor.empty() : tensor<1x2x53x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x53x16xf32>, tensor<1x2x40x16xf32>, tensor<1x2x40x16xf32>) mask(%m : tensor<1x1x53x40xi1>) outs(%o : tensor<1x2x53x16xf32>) -> tensor<1x2x53x16xf32>
  return %0 : tensor<1x2x53x16xf32>
}

func.func @softmax_rows(%x: tensor<3x101x67xf32>) -> tensor<3x101x67xf32> {
  %y = tensor.empty() : tensor<3x101x67xf32>
  %0 = accel.softmax dimension(2) ins(%x : tensor<3x101x67xf32>) outs(%y : tensor<3x101x67xf32>) -> tensor<3x101x67xf32>
  return %0 : tensor<3x101x67xf32>
}

func.func @softmax_dim0(%x: tensor<37x53xf32>) -> tensor<37x53xf32> {
  %y = tensor.empty() : tensor<37x53xf32>
  %0 = accel.softmax dimension(0) ins(%x : tensor<37x53xf32>) outs(%y : tensor<37x53xf32>) -> tensor<37x53xf32>
  return %0 : tensor<37x53xf32>
}
