// REQUIRES: numpy
// RoPE on the GPUs: accel-fuse-slices makes the halves (or pairs) of x,
// their rotations and the concat (or strided inserts) one elementwise
// generic whose maps read x at d mod 32 and d mod 32 + 32 (2 (d floordiv 2)
// and 2 (d floordiv 2) + 1), which convert-accel-to-gpu computes as one
// elementwise kernel. accel-run records the functions; the emulator runs
// the sm_80, gfx942 and gfx1100 kernels on the recorded inputs, and the
// replay checks what they wrote against the fp64 oracle of the unfused
// functions (slices, concat and inserts as written). The CPU runs the same.
// The last function is a program: a projection whose product, reshaped to
// heads, RoPE reads at two places (so the product is stored, no epilogue).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-fuse-slices --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-fuse-slices --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-fuse-slices --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-run %s --repeat=0 | FileCheck %s

// REC: @rope_half_split: recorded rope_half_split_elementwise0 (4 buffers)
// REC: @rope_interleaved_f16: recorded rope_interleaved_f16_elementwise0 (4 buffers)
// REC: @projection_then_rope: recorded projection_then_rope_0, projection_then_rope_elementwise0 (6 buffers)

// LAUNCH: @rope_half_split_elementwise0: launched
// LAUNCH: @rope_interleaved_f16_elementwise0: launched
// LAUNCH: @projection_then_rope: program of 2 kernels ran, 2 buffers written
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @rope_half_split
// CHECK: PASS
// CHECK-LABEL: @rope_interleaved_f16
// CHECK: PASS
// CHECK-LABEL: @projection_then_rope
// CHECK: PASS
// CHECK: accel-run: 3 of 3 functions passed

#x = affine_map<(s, h, d) -> (s, h, d)>
#t = affine_map<(s, h, d) -> (s, d)>

// 16 positions, 4 heads, d = 64: x[..., :32] and x[..., 32:].
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

// Pairs (x[2i], x[2i+1]) of f16, cos and sin in f32: stride-2 slices in,
// stride-2 inserts out. 12 positions, 2 heads, d = 32.
func.func @rope_interleaved_f16(%x: tensor<12x2x32xf16>, %cos: tensor<12x16xf32>, %sin: tensor<12x16xf32>) -> tensor<12x2x32xf16> {
  %xe = tensor.extract_slice %x[0, 0, 0] [12, 2, 16] [1, 1, 2] : tensor<12x2x32xf16> to tensor<12x2x16xf16>
  %xo = tensor.extract_slice %x[0, 0, 1] [12, 2, 16] [1, 1, 2] : tensor<12x2x32xf16> to tensor<12x2x16xf16>
  %e = tensor.empty() : tensor<12x2x16xf16>
  %oe = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<12x2x16xf16>, tensor<12x2x16xf16>, tensor<12x16xf32>, tensor<12x16xf32>) outs(%e : tensor<12x2x16xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f32, %s: f32, %o: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %ac = arith.mulf %af, %c : f32
    %bs = arith.mulf %bf, %s : f32
    %r = arith.subf %ac, %bs : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x2x16xf16>
  %oo = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%xe, %xo, %cos, %sin : tensor<12x2x16xf16>, tensor<12x2x16xf16>, tensor<12x16xf32>, tensor<12x16xf32>) outs(%e : tensor<12x2x16xf16>) {
  ^bb0(%a: f16, %b: f16, %c: f32, %s: f32, %o: f16):
    %af = arith.extf %a : f16 to f32
    %bf = arith.extf %b : f16 to f32
    %bc = arith.mulf %bf, %c : f32
    %as = arith.mulf %af, %s : f32
    %r = arith.addf %bc, %as : f32
    %t = arith.truncf %r : f32 to f16
    linalg.yield %t : f16
  } -> tensor<12x2x16xf16>
  %out0 = tensor.empty() : tensor<12x2x32xf16>
  %out1 = tensor.insert_slice %oe into %out0[0, 0, 0] [12, 2, 16] [1, 1, 2] : tensor<12x2x16xf16> into tensor<12x2x32xf16>
  %out2 = tensor.insert_slice %oo into %out1[0, 0, 1] [12, 2, 16] [1, 1, 2] : tensor<12x2x16xf16> into tensor<12x2x32xf16>
  return %out2 : tensor<12x2x32xf16>
}

// q = x Wq (f16 in, f32 out), as [s, h, d] heads, rotated: 16 positions,
// 2 heads, d = 32.
func.func @projection_then_rope(%x: tensor<16x64xf16>, %wq: tensor<64x64xf16>, %cos: tensor<16x16xf32>, %sin: tensor<16x16xf32>) -> tensor<16x2x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<16x64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<16x64xf32>) -> tensor<16x64xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<16x64xf16>, tensor<64x64xf16>) outs(%z : tensor<16x64xf32>) -> tensor<16x64xf32>
  %qh = tensor.expand_shape %q [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xf32> into tensor<16x2x32xf32>
  %q1 = tensor.extract_slice %qh[0, 0, 0] [16, 2, 16] [1, 1, 1] : tensor<16x2x32xf32> to tensor<16x2x16xf32>
  %q2 = tensor.extract_slice %qh[0, 0, 16] [16, 2, 16] [1, 1, 1] : tensor<16x2x32xf32> to tensor<16x2x16xf32>
  %e = tensor.empty() : tensor<16x2x16xf32>
  %o1 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q1, %q2, %cos, %sin : tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %ac = arith.mulf %a, %c : f32
    %bs = arith.mulf %b, %s : f32
    %r = arith.subf %ac, %bs : f32
    linalg.yield %r : f32
  } -> tensor<16x2x16xf32>
  %o2 = linalg.generic {indexing_maps = [#x, #x, #t, #t, #x], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%q1, %q2, %cos, %sin : tensor<16x2x16xf32>, tensor<16x2x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>) outs(%e : tensor<16x2x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %s: f32, %o: f32):
    %bc = arith.mulf %b, %c : f32
    %as = arith.mulf %a, %s : f32
    %r = arith.addf %bc, %as : f32
    linalg.yield %r : f32
  } -> tensor<16x2x16xf32>
  %r = tensor.concat dim(2) %o1, %o2 : (tensor<16x2x16xf32>, tensor<16x2x16xf32>) -> tensor<16x2x32xf32>
  return %r : tensor<16x2x32xf32>
}
