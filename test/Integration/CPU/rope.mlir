// RoPE as frontends write it, on the CPU against the fp64 oracle: the
// half-split form (x[..., :d/2] and x[..., d/2:] rotated, then concatenated)
// and the interleaved form (pairs x[2i], x[2i+1] through stride-2 slices,
// written back with stride-2 inserts). The strided inserts and the concat
// bufferize to copies of non-contiguous views, which accel-cpu-lower-copies
// turns into loops (memref-to-llvm would call the runtime's memrefCopy,
// which the JIT does not link). 16 positions, 4 heads, d = 64.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=2 --num-threads=2 | FileCheck %s
// CHECK-LABEL: @rope_half_split
// CHECK: PASS
// CHECK-LABEL: @rope_interleaved
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

#x = affine_map<(s, h, d) -> (s, h, d)>
#t = affine_map<(s, h, d) -> (s, d)>
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

// Interleaved pairs (x[2i], x[2i+1]): strided slices in, strided inserts out.
func.func @rope_interleaved(%x: tensor<16x4x64xf32>, %cos: tensor<16x32xf32>, %sin: tensor<16x32xf32>) -> tensor<16x4x64xf32> {
  %xe = tensor.extract_slice %x[0, 0, 0] [16, 4, 32] [1, 1, 2] : tensor<16x4x64xf32> to tensor<16x4x32xf32>
  %xo = tensor.extract_slice %x[0, 0, 1] [16, 4, 32] [1, 1, 2] : tensor<16x4x64xf32> to tensor<16x4x32xf32>
  %e = tensor.empty() : tensor<16x4x32xf32>
  %oe = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<16x4x32xf32>, tensor<16x4x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<16x4x32xf32>
  %oo = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<16x4x32xf32>, tensor<16x4x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<16x4x32xf32>
  %out0 = tensor.empty() : tensor<16x4x64xf32>
  %out1 = tensor.insert_slice %oe into %out0[0, 0, 0] [16, 4, 32] [1, 1, 2] : tensor<16x4x32xf32> into tensor<16x4x64xf32>
  %out2 = tensor.insert_slice %oo into %out1[0, 0, 1] [16, 4, 32] [1, 1, 2] : tensor<16x4x32xf32> into tensor<16x4x64xf32>
  return %out2 : tensor<16x4x64xf32>
}
