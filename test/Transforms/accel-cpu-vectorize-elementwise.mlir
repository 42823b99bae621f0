// RUN: accel-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise))" | FileCheck %s
// RUN: not accel-opt %s --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise{width=0}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-BAD
// CHECK-BAD: error: accel-cpu-vectorize-elementwise: width and max-row must be positive

// An elementwise exp2 over 8 x 40: rows tiled by 1, columns by 16 lanes with
// the 8-lane remainder peeled, all of it vector code; the f32 exp2 becomes
// the short polynomial of FastExp2.cpp (its magic-number add; no math.exp
// left; test/Integration/CPU/fast-exp2.mlir checks its values).
// CHECK-LABEL: func @exp2_rows
// CHECK-DAG: vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK-DAG: vector.transfer_read {{.*}} vector<1x8xf32>
// CHECK-DAG: arith.constant dense<0x4B40007E> : vector<1x16xf32>
// CHECK-DAG: arith.constant dense<0x4B40007E> : vector<1x8xf32>
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp
func.func @exp2_rows(%x: memref<8x40xf32>, %y: memref<8x40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x40xf32>) outs(%y : memref<8x40xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp2 %a : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A row maximum over 64 keys: each row one vector reduction.
// CHECK-LABEL: func @row_max
// CHECK: vector.reduction <maximumf>, %{{.+}}, %{{.+}} : vector<64xf32> into f32
// CHECK-NOT: linalg.generic
func.func @row_max(%x: memref<4x64xf32>, %m: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The same row maximum marked accel.unordered_max (the FlashAttention
// decomposition's): where a row holds a NaN it may return any value or
// NaN, so its reductions carry nnan nsz and LLVM reduces with plain vmaxps.
// An unmarked maximum in the same function keeps NaN ordering.
// CHECK-LABEL: func @unordered_row_max
// CHECK: vector.reduction <maximumf>, %{{.+}}, %{{.+}} fastmath<nnan,nsz> : vector<64xf32> into f32
// CHECK-NOT: fastmath<nnan,nsz>
// CHECK: vector.reduction <maximumf>, %{{.+}}, %{{.+}} : vector<64xf32> into f32
// CHECK-NOT: linalg.generic
func.func @unordered_row_max(%x: memref<4x64xf32>, %m: memref<4xf32>, %m2: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m : memref<4xf32>) attrs = {accel.unordered_max} {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m2 : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// exp2 and its row sum in one generic (FlashAttention's P and l, one pass
// over the tile): the row is one vector, written whole and reduced
// (reassociable) in the same code.
// CHECK-LABEL: func @exp_and_sum
// CHECK: vector.reduction <add>, %{{.+}}, %{{.+}} fastmath<reassoc> : vector<128xf32> into f32
// CHECK: vector.transfer_write {{.+}} : vector<1x128xf32>, memref<1x128xf32
// CHECK-NOT: linalg.generic
// CHECK-NOT: math.exp2
func.func @exp_and_sum(%s: memref<2x128xf32>, %p: memref<2x128xf32>, %l: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<2x128xf32>) outs(%p, %l : memref<2x128xf32>, memref<2xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %e = math.exp2 %x : f32
    %r = arith.addf %acc, %e : f32
    linalg.yield %e, %r : f32, f32
  }
  return
}

// -----

// A row sum over 128 keys (the softmax denominator): reassociable, so LLVM
// adds the row's vectors and then reduces the lanes as a tree, instead of
// 128 dependent scalar adds in order. A max carries no flag (exact in any
// order).
// CHECK-LABEL: func @row_sum
// CHECK: vector.reduction <add>, %{{.+}}, %{{.+}} fastmath<reassoc> : vector<128xf32> into f32
// CHECK: vector.reduction <maximumf>, %{{.+}}, %{{.+}} : vector<128xf32> into f32
// CHECK-NOT: linalg.generic
func.func @row_sum(%x: memref<2x128xf32>, %s: memref<2xf32>, %m: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x128xf32>) outs(%s : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x128xf32>) outs(%m : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %acc, %a : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left alone: dynamic shapes, and broadcasts through constant indices (no
// tiling, no vectors, the original operands).
// CHECK-LABEL: func @untouched
// CHECK-NOT: scf.for
// CHECK-NOT: vector.
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<?x16xf32>) outs(%{{.*}} : memref<?x16xf32>)
// CHECK-NOT: vector.
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<1x16xf32>) outs(%{{.*}} : memref<4x16xf32>)
// CHECK-NOT: vector.
// CHECK: return
func.func @untouched(%x: memref<?x16xf32>, %y: memref<?x16xf32>, %b: memref<1x16xf32>, %z: memref<4x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x16xf32>) outs(%y : memref<?x16xf32>) {
  ^bb0(%a: f32, %c: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<1x16xf32>) outs(%z : memref<4x16xf32>) {
  ^bb0(%a: f32, %c: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Scalar exps outside vectorized tiles keep libm's exp: the polynomial is
// for the vectors the pass makes. A row longer than max-row stays scalar.
// CHECK-LABEL: func @scalar_exp
// CHECK: math.exp %{{.+}} : f32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<2x4096xf32>)
// CHECK: math.exp2 %{{.+}} : f32
func.func @scalar_exp(%s: f32, %x: memref<2x4096xf32>, %m: memref<2xf32>) -> f32 {
  %e = math.exp %s : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<2x4096xf32>) outs(%m : memref<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %p = math.exp2 %a : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return %e : f32
}

// -----

// A boolean mask in memory is a byte per element, but LLVM reads an
// <N x i1> vector as N packed bits: generics with i1 buffers stay scalar
// (the f32 one next to it is vectorized).
// CHECK-LABEL: func @bool_mask_stays_scalar
// CHECK: linalg.generic
// CHECK-SAME: memref<8x32xi1>
// CHECK-NOT: xi1>, vector<
// CHECK: vector.transfer_read %{{.+}} : memref<1x16xf32, strided<[32, 1], offset: ?>>, vector<1x16xf32>
func.func @bool_mask_stays_scalar(%s: memref<8x32xf32>, %m: memref<8x32xi1>, %o: memref<8x32xf32>, %o2: memref<8x32xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%s, %m : memref<8x32xf32>, memref<8x32xi1>) outs(%o : memref<8x32xf32>) {
  ^bb0(%x: f32, %keep: i1, %out: f32):
    %y = arith.select %keep, %x, %ninf : f32
    linalg.yield %y : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%s : memref<8x32xf32>) outs(%o2 : memref<8x32xf32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.addf %x, %x : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A strided copy (the AMX kernels' padded C copied back: rows of 1008, 1000
// kept): rows one at a time, 16 lanes at a time, the 8-column rest peeled.
// Left to linalg-to-parallel-loops it was one scalar parallel loop over all
// elements, which cost a 1024 x 1000 int8 GEMM on two threads 0.3 ms.
// CHECK-LABEL: func.func @strided_copy
// CHECK: scf.for %{{.*}} = %c0 to %c64
// CHECK: scf.for %{{.*}} = %c0 to %c992 step %c16
// CHECK: vector.transfer_read {{.*}} : memref<1x16xi32, strided<[1008, 1], offset: ?>>, vector<1x16xi32>
// CHECK: vector.transfer_write {{.*}} : vector<1x16xi32>, memref<1x16xi32, strided<[1000, 1], offset: ?>>
// CHECK: memref.subview {{.*}}[%{{.*}}, 992] [1, 8]
// CHECK: vector.transfer_read {{.*}} vector<1x8xi32>
// CHECK-NOT: linalg.copy
func.func @strided_copy(%src: memref<64x1008xi32>, %dst: memref<64x1000xi32>) {
  %corner = memref.subview %src[0, 0] [64, 1000] [1, 1] : memref<64x1008xi32> to memref<64x1000xi32, strided<[1008, 1]>>
  linalg.copy ins(%corner : memref<64x1000xi32, strided<[1008, 1]>>) outs(%dst : memref<64x1000xi32>)
  return
}
