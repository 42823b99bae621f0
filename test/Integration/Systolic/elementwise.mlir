// Elementwise ops on the systolic target's vector unit
// (SystolicElementwise.h) against the fp64 oracle: a matmul's bias (one row
// moved in, doubled by vector copies) and ReLU (maximumf, the select), SiLU
// through exp and div into bf16 (mvout rounds), a batched matmul's
// residual with a per-row scale (one column applied per row), SwiGLU's
// product of two matmuls, a constant minus a block and a per-row value
// minus a block (the non-commutative operands materialised), a fill, and
// a program of elementwise ops alone (an f32 machine), and rsqrt (the
// unit's rsqrt: 1 / sqrt in f32) of a per-row value scaling a block.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=4 dataflow=os" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 8 of 8 functions passed

#id2 = affine_map<(i, j) -> (i, j)>
#col2 = affine_map<(i, j) -> (j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>
#row3 = affine_map<(b, i, j) -> (i)>

func.func @matmul_bias_relu(%a: tensor<37x45xf32>, %b: tensor<45x29xf32>, %bias: tensor<29xf32>) -> tensor<37x29xf32> {
  %c = tensor.empty() : tensor<37x29xf32>
  %0 = accel.matmul ins(%a, %b : tensor<37x45xf32>, tensor<45x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  %e = tensor.empty() : tensor<37x29xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %bias : tensor<37x29xf32>, tensor<29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %z : f32
    linalg.yield %r : f32
  } -> tensor<37x29xf32>
  return %1 : tensor<37x29xf32>
}

func.func @silu_bf16(%a: tensor<20x64xbf16>, %b: tensor<64x40xbf16>) -> tensor<20x40xbf16> {
  %c = tensor.empty() : tensor<20x40xf32>
  %0 = accel.matmul ins(%a, %b : tensor<20x64xbf16>, tensor<64x40xbf16>) outs(%c : tensor<20x40xf32>) -> tensor<20x40xf32>
  %e = tensor.empty() : tensor<20x40xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<20x40xf32>) outs(%e : tensor<20x40xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %sig = arith.divf %one, %d : f32
    %s = arith.mulf %x, %sig : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<20x40xbf16>
  return %1 : tensor<20x40xbf16>
}

func.func @residual_row_scale(%a: tensor<2x21x30xf32>, %b: tensor<2x30x33xf32>, %res: tensor<2x21x33xbf16>, %scale: tensor<21xf32>) -> tensor<2x21x33xf32> {
  %c = tensor.empty() : tensor<2x21x33xf32>
  %0 = accel.matmul ins(%a, %b : tensor<2x21x30xf32>, tensor<2x30x33xf32>) outs(%c : tensor<2x21x33xf32>) -> tensor<2x21x33xf32>
  %e = tensor.empty() : tensor<2x21x33xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %res, %scale : tensor<2x21x33xf32>, tensor<2x21x33xbf16>, tensor<21xf32>) outs(%e : tensor<2x21x33xf32>) {
  ^bb0(%x: f32, %r: bf16, %s: f32, %o: f32):
    %rf = arith.extf %r : bf16 to f32
    %m = arith.mulf %x, %s : f32
    %y = arith.addf %m, %rf : f32
    linalg.yield %y : f32
  } -> tensor<2x21x33xf32>
  return %1 : tensor<2x21x33xf32>
}

func.func @swiglu(%x: tensor<8x32xf32>, %wg: tensor<32x48xf32>, %wu: tensor<32x48xf32>) -> tensor<8x48xf32> {
  %c = tensor.empty() : tensor<8x48xf32>
  %g = accel.matmul ins(%x, %wg : tensor<8x32xf32>, tensor<32x48xf32>) outs(%c : tensor<8x48xf32>) -> tensor<8x48xf32>
  %u = accel.matmul ins(%x, %wu : tensor<8x32xf32>, tensor<32x48xf32>) outs(%c : tensor<8x48xf32>) -> tensor<8x48xf32>
  %e = tensor.empty() : tensor<8x48xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%g, %u : tensor<8x48xf32>, tensor<8x48xf32>) outs(%e : tensor<8x48xf32>) {
  ^bb0(%gv: f32, %uv: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %gv : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %s = arith.divf %gv, %d : f32
    %y = arith.mulf %s, %uv : f32
    linalg.yield %y : f32
  } -> tensor<8x48xf32>
  return %1 : tensor<8x48xf32>
}

// 2 - x and rowval - x: the unit's first operand is a block, so the
// constant and the column become blocks first.
func.func @non_commutative(%a: tensor<19x23xf32>, %b: tensor<23x17xf32>, %v: tensor<19x1xf32>) -> tensor<19x17xf32> {
  %c = tensor.empty() : tensor<19x17xf32>
  %0 = accel.matmul ins(%a, %b : tensor<19x23xf32>, tensor<23x17xf32>) outs(%c : tensor<19x17xf32>) -> tensor<19x17xf32>
  %e = tensor.empty() : tensor<19x17xf32>
  %1 = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i, 0)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%0, %v : tensor<19x17xf32>, tensor<19x1xf32>) outs(%e : tensor<19x17xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %p = arith.subf %two, %x : f32
    %q = arith.subf %r, %x : f32
    %d = arith.addf %q, %p : f32
    linalg.yield %d : f32
  } -> tensor<19x17xf32>
  return %1 : tensor<19x17xf32>
}

func.func @fill(%a: tensor<9x13xf32>, %b: tensor<13x11xf32>) -> (tensor<9x11xf32>, tensor<5x40xf32>) {
  %c = tensor.empty() : tensor<9x11xf32>
  %0 = accel.matmul ins(%a, %b : tensor<9x13xf32>, tensor<13x11xf32>) outs(%c : tensor<9x11xf32>) -> tensor<9x11xf32>
  %e = tensor.empty() : tensor<5x40xf32>
  %v = arith.constant 1.5 : f32
  %1 = linalg.fill ins(%v : f32) outs(%e : tensor<5x40xf32>) -> tensor<5x40xf32>
  return %0, %1 : tensor<9x11xf32>, tensor<5x40xf32>
}

// No matmul: the ReLU of torch-mlir (select of cmpf ugt), bf16 in and out.
func.func @relu_alone(%x: tensor<3x50xbf16>) -> tensor<3x50xbf16> {
  %e = tensor.empty() : tensor<3x50xbf16>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<3x50xbf16>) outs(%e : tensor<3x50xbf16>) {
  ^bb0(%v: bf16, %o: bf16):
    %f = arith.extf %v : bf16 to f32
    %z = arith.constant 0.0 : f32
    %cmp = arith.cmpf ugt, %f, %z : f32
    %r = arith.select %cmp, %f, %z : f32
    %t = arith.truncf %r : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<3x50xbf16>
  return %1 : tensor<3x50xbf16>
}

// x * rsqrt(v * v + 1e-5), v per row: the rsqrt on one column.
func.func @rsqrt_rows(%x: tensor<21x40xf32>, %v: tensor<21xf32>) -> tensor<21x40xf32> {
  %e = tensor.empty() : tensor<21x40xf32>
  %1 = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %v : tensor<21x40xf32>, tensor<21xf32>) outs(%e : tensor<21x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %sq = arith.mulf %b, %b : f32
    %s = arith.addf %sq, %eps : f32
    %r = math.rsqrt %s : f32
    %y = arith.mulf %a, %r : f32
    linalg.yield %y : f32
  } -> tensor<21x40xf32>
  return %1 : tensor<21x40xf32>
}
