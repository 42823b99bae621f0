// The passes that run pattern sets greedily stop after `max-iterations`
// sweeps of the driver (default 10): rewrites still changing the IR then
// fail the pass with a located error naming the stage, never a hang and
// never a silent failure (docs/bad-input-catalogue.md, row 12). One sweep
// that rewrites anything is not a converged one, so max-iterations=1 makes
// each pass report; the default converges on the same input.
// RUN: split-file %s %t
// RUN: accel-opt %t/raise.mlir --accel-raise=max-iterations=1 -verify-diagnostics
// RUN: accel-opt %t/raise.mlir --accel-raise | FileCheck %s --check-prefix=RAISE
// RUN: accel-opt %t/fuse.mlir --accel-fuse-attention=max-iterations=1 -verify-diagnostics
// RUN: accel-opt %t/fuse.mlir --accel-fuse-attention | FileCheck %s --check-prefix=FUSE
// RUN: accel-opt %t/transpose.mlir --accel-cpu-transpose-rhs=max-iterations=1 -verify-diagnostics
// RUN: accel-opt %t/transpose.mlir --accel-cpu-transpose-rhs | FileCheck %s --check-prefix=TRANSPOSE
// RUN: accel-opt %t/contractions.mlir --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions{max-iterations=1}))" -verify-diagnostics
// RUN: accel-opt %t/contractions.mlir --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-contractions))" | FileCheck %s --check-prefix=CONTRACT
// RUN: accel-opt %t/elementwise.mlir --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise{max-iterations=1}))" -verify-diagnostics
// RUN: accel-opt %t/elementwise.mlir --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise))" | FileCheck %s --check-prefix=ELEMENTWISE
// RUN: not accel-opt %t/raise.mlir --accel-raise=max-iterations=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not accel-opt %t/raise.mlir --accel-raise=max-iterations=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not accel-opt %t/elementwise.mlir --pass-pipeline="builtin.module(func.func(accel-cpu-vectorize-elementwise{max-iterations=0}))" 2>&1 | FileCheck %s --check-prefix=ZERO-FUNC

// RAISE: accel.matmul
// FUSE: accel.attention
// TRANSPOSE: linalg.transpose
// CONTRACT: vector.fma
// ELEMENTWISE: vector.transfer_read
// NEGATIVE: for the --max-iterations option: '-1' value invalid
// ZERO: raise.mlir:2:1: error: accel-raise: max-iterations must be at least 1
// ZERO-FUNC: elementwise.mlir:2:1: error: accel-cpu-vectorize-elementwise: max-iterations must be at least 1

//--- raise.mlir
// expected-error @+1 {{pattern rewrites did not converge in the raising stage of accel-raise within 1 sweep}}
module {
  func.func @mm(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

//--- fuse.mlir
// expected-error @+1 {{pattern rewrites did not converge in the fusion stage of accel-fuse-attention within 1 sweep}}
module {
  func.func @attn(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
    %e = tensor.empty() : tensor<1x2x8x8xf32>
    %s = accel.matmul ins(%q, %k : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%e : tensor<1x2x8x8xf32>) {transpose_b} -> tensor<1x2x8x8xf32>
    %p = accel.softmax dimension(3) ins(%s : tensor<1x2x8x8xf32>) outs(%e : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>
    %eo = tensor.empty() : tensor<1x2x8x16xf32>
    %o = accel.matmul ins(%p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x16xf32>) outs(%eo : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
    return %o : tensor<1x2x8x16xf32>
  }
}

//--- transpose.mlir
// expected-error @+1 {{pattern rewrites did not converge in the transposition stage of accel-cpu-transpose-rhs within 1 sweep}}
module {
  func.func @transpose_b(%a: tensor<8x4xf32>, %b: tensor<16x4xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
    %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
         ins(%a, %b : tensor<8x4xf32>, tensor<16x4xf32>) outs(%c : tensor<8x16xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    } -> tensor<8x16xf32>
    return %0 : tensor<8x16xf32>
  }
}

//--- contractions.mlir
// expected-error @+1 {{pattern rewrites did not converge in the canonicalization stage of accel-cpu-vectorize-contractions within 1 sweep}}
func.func @mm(%a: memref<40x24xf32>, %b: memref<24x48xf32>, %c: memref<40x48xf32>) {
  linalg.matmul ins(%a, %b : memref<40x24xf32>, memref<24x48xf32>) outs(%c : memref<40x48xf32>)
  return
}

//--- elementwise.mlir
// expected-error @+1 {{pattern rewrites did not converge in the canonicalization stage of accel-cpu-vectorize-elementwise within 1 sweep}}
func.func @exp2_rows(%x: memref<8x40xf32>, %y: memref<8x40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x40xf32>) outs(%y : memref<8x40xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp2 %a : f32
    linalg.yield %e : f32
  }
  return
}
