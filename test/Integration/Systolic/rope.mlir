// RoPE as frontends write it (half-split: x[..., :d/2] and x[..., d/2:]
// through tensor.extract_slice, rotated by two elementwise generics, put
// together by tensor.concat) on the systolic target, against the fp64
// oracle: the slices are views of x (an offset and x's strides), each
// generic a kernel of the vector unit that writes its half of the
// concatenation's buffer (no copy). 16 positions x 4 heads x d 64, and a
// single head after a matmul (the slices read the matmul's result). Three
// machines: the default, a 2 KiB accumulator, 8x8 with 4 lanes. The
// interleaved form (stride-2 slices) is a located error
// (test/Conversion/AccelToSystolic/rope.mlir).
//
// RUN: accel-run %s --target=systolic | FileCheck %s
// RUN: accel-run %s --target=systolic --dist=normal --systolic-pipeline-options="acc-kib=2" | FileCheck %s
// RUN: accel-run %s --target=systolic --systolic-pipeline-options="rows=8 cols=8 vector-lanes=4" | FileCheck %s
// CHECK: accel-run: 2 of 2 functions passed

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
