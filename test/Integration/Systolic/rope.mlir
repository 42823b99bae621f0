// RoPE as frontends write it (half-split: x[..., :d/2] and x[..., d/2:]
// through tensor.extract_slice, rotated by two elementwise generics, put
// together by tensor.concat) on the systolic target, against the fp64
// oracle: the slices are views of x (an offset and x's strides), each
// generic a kernel of the vector unit that writes its half of the
// concatenation's buffer (no copy). 16 positions x 4 heads x d 64, and a
// single head after a matmul (the slices read the matmul's result). The
// interleaved form (stride-2 slices; written back by stride-2 inserts, or
// stacked on a unit dimension and flattened) reads and writes each row's
// even or odd elements through the DMA's transpose. Three machines: the
// default, a 2 KiB accumulator, 8x8 with 4 lanes.
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=2" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 5 of 5 functions passed

#x = affine_map<(s, h, d) -> (s, h, d)>
#t = affine_map<(s, h, d) -> (s, d)>
#id2 = affine_map<(s, d) -> (s, d)>
func.func @rope_half_split(%x: tensor<16x4x64xf32>, %cos: tensor<16x32xf32>, %sin: tensor<16x32xf32>) -> tensor<16x4x64xf32> {
  %x1 = tensor.extract_slice %x[0, 0, 0] [16, 4, 32] [1, 1, 1] : tensor<16x4x64xf32> to tensor<16x4x32xf32>
  %x2 = tensor.extract_slice %x[0, 0, 32] [16, 4, 32] [1, 1, 1] : tensor<16x4x64xf32> to tensor<16x4x32xf32>
  %e = tensor.empty() : tensor<16x4x32xf32>
  %o1 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x1, %x2, %cos, %sin : tensor<16x4x32xf32>, tensor<16x4x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<16x4x32xf32>
  %o2 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x1, %x2, %cos, %sin : tensor<16x4x32xf32>, tensor<16x4x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<16x4x32xf32>
  %r = tensor.concat dim(2) %o1, %o2 : (tensor<16x4x32xf32>, tensor<16x4x32xf32>) -> tensor<16x4x64xf32>
  return %r : tensor<16x4x64xf32>
}

// q = x . Wq (one head of 48), then RoPE on q (bf16 inputs, f32 q).
func.func @matmul_rope(%xin: tensor<20x32xbf16>, %w: tensor<32x48xbf16>, %cos: tensor<20x24xf32>, %sin: tensor<20x24xf32>) -> tensor<20x48xf32> {
  %c = tensor.empty() : tensor<20x48xf32>
  %q = accel.matmul ins(%xin, %w : tensor<20x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<20x48xf32>) -> tensor<20x48xf32>
  %q1 = tensor.extract_slice %q[0, 0] [20, 24] [1, 1] : tensor<20x48xf32> to tensor<20x24xf32>
  %q2 = tensor.extract_slice %q[0, 24] [20, 24] [1, 1] : tensor<20x48xf32> to tensor<20x24xf32>
  %e = tensor.empty() : tensor<20x24xf32>
  %o1 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q1, %q2, %cos, %sin : tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>) outs(%e : tensor<20x24xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %cc : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<20x24xf32>
  %o2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%q1, %q2, %cos, %sin : tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>) outs(%e : tensor<20x24xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %cc : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<20x24xf32>
  %r = tensor.concat dim(1) %o1, %o2 : (tensor<20x24xf32>, tensor<20x24xf32>) -> tensor<20x48xf32>
  return %r : tensor<20x48xf32>
}

// Interleaved pairs (x[2i], x[2i+1]): stride-2 slices in, stride-2
// inserts out (as the GPU test emulate-rope.mlir writes them); each row's
// even or odd elements moved by the DMA's transpose. 12 positions, 3
// heads, d = 32 (16 pairs: one strip per row on 16 columns).
#x3 = affine_map<(s, h, i) -> (s, h, i)>
#t3 = affine_map<(s, h, i) -> (s, i)>
func.func @rope_interleaved(%x: tensor<12x3x32xf32>, %cos: tensor<12x16xf32>, %sin: tensor<12x16xf32>) -> tensor<12x3x32xf32> {
  %xe = tensor.extract_slice %x[0, 0, 0] [12, 3, 16] [1, 1, 2] : tensor<12x3x32xf32> to tensor<12x3x16xf32>
  %xo = tensor.extract_slice %x[0, 0, 1] [12, 3, 16] [1, 1, 2] : tensor<12x3x32xf32> to tensor<12x3x16xf32>
  %e = tensor.empty() : tensor<12x3x16xf32>
  %oe = linalg.generic {indexing_maps = [#x3, #x3, #t3, #t3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<12x3x16xf32>, tensor<12x3x16xf32>, tensor<12x16xf32>, tensor<12x16xf32>) outs(%e : tensor<12x3x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<12x3x16xf32>
  %oo = linalg.generic {indexing_maps = [#x3, #x3, #t3, #t3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<12x3x16xf32>, tensor<12x3x16xf32>, tensor<12x16xf32>, tensor<12x16xf32>) outs(%e : tensor<12x3x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<12x3x16xf32>
  %out0 = tensor.empty() : tensor<12x3x32xf32>
  %out1 = tensor.insert_slice %oe into %out0[0, 0, 0] [12, 3, 16] [1, 1, 2] : tensor<12x3x16xf32> into tensor<12x3x32xf32>
  %out2 = tensor.insert_slice %oo into %out1[0, 0, 1] [12, 3, 16] [1, 1, 2] : tensor<12x3x16xf32> into tensor<12x3x32xf32>
  return %out2 : tensor<12x3x32xf32>
}

// q = x . Wq, then interleaved RoPE as torch writes it with stack and
// flatten: q[:, 0::2] and q[:, 1::2], each rotated half given a unit last
// dimension, concatenated along it and collapsed to [20, 48] (24 pairs: a
// second strip of 8 columns). bf16 inputs, f32 q.
#id3 = affine_map<(s, i) -> (s, i)>
func.func @matmul_rope_stacked(%xin: tensor<20x32xbf16>, %w: tensor<32x48xbf16>, %cos: tensor<20x24xf32>, %sin: tensor<20x24xf32>) -> tensor<20x48xf32> {
  %c = tensor.empty() : tensor<20x48xf32>
  %q = accel.matmul ins(%xin, %w : tensor<20x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<20x48xf32>) -> tensor<20x48xf32>
  %qe = tensor.extract_slice %q[0, 0] [20, 24] [1, 2] : tensor<20x48xf32> to tensor<20x24xf32>
  %qo = tensor.extract_slice %q[0, 1] [20, 24] [1, 2] : tensor<20x48xf32> to tensor<20x24xf32>
  %e = tensor.empty() : tensor<20x24xf32>
  %oe = linalg.generic {indexing_maps = [#id3, #id3, #id3, #id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%qe, %qo, %cos, %sin : tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>) outs(%e : tensor<20x24xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %cc : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<20x24xf32>
  %oo = linalg.generic {indexing_maps = [#id3, #id3, #id3, #id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%qe, %qo, %cos, %sin : tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>, tensor<20x24xf32>) outs(%e : tensor<20x24xf32>) {
  ^bb0(%a: f32, %b: f32, %cc: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %cc : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<20x24xf32>
  %oe3 = tensor.expand_shape %oe [[0], [1, 2]] output_shape [20, 24, 1] : tensor<20x24xf32> into tensor<20x24x1xf32>
  %oo3 = tensor.expand_shape %oo [[0], [1, 2]] output_shape [20, 24, 1] : tensor<20x24xf32> into tensor<20x24x1xf32>
  %st = tensor.concat dim(2) %oe3, %oo3 : (tensor<20x24x1xf32>, tensor<20x24x1xf32>) -> tensor<20x24x2xf32>
  %r = tensor.collapse_shape %st [[0], [1, 2]] : tensor<20x24x2xf32> into tensor<20x48xf32>
  return %r : tensor<20x48xf32>
}

// 17 pairs: each row's last pair is a strip of one column, moved and
// stored at the stride too.
func.func @rope_interleaved_17(%x: tensor<4x2x34xf32>, %cos: tensor<4x17xf32>, %sin: tensor<4x17xf32>) -> tensor<4x2x34xf32> {
  %xe = tensor.extract_slice %x[0, 0, 0] [4, 2, 17] [1, 1, 2] : tensor<4x2x34xf32> to tensor<4x2x17xf32>
  %xo = tensor.extract_slice %x[0, 0, 1] [4, 2, 17] [1, 1, 2] : tensor<4x2x34xf32> to tensor<4x2x17xf32>
  %e = tensor.empty() : tensor<4x2x17xf32>
  %oe = linalg.generic {indexing_maps = [#x3, #x3, #t3, #t3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<4x2x17xf32>, tensor<4x2x17xf32>, tensor<4x17xf32>, tensor<4x17xf32>) outs(%e : tensor<4x2x17xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<4x2x17xf32>
  %oo = linalg.generic {indexing_maps = [#x3, #x3, #t3, #t3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<4x2x17xf32>, tensor<4x2x17xf32>, tensor<4x17xf32>, tensor<4x17xf32>) outs(%e : tensor<4x2x17xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<4x2x17xf32>
  %out0 = tensor.empty() : tensor<4x2x34xf32>
  %out1 = tensor.insert_slice %oe into %out0[0, 0, 0] [4, 2, 17] [1, 1, 2] : tensor<4x2x17xf32> into tensor<4x2x34xf32>
  %out2 = tensor.insert_slice %oo into %out1[0, 0, 1] [4, 2, 17] [1, 1, 2] : tensor<4x2x17xf32> into tensor<4x2x34xf32>
  return %out2 : tensor<4x2x34xf32>
}
