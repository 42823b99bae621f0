// REQUIRES: numpy
// Matmul epilogues on the GPU, checked against the fp64 oracle of the whole
// function without a GPU: accel-run records the inputs (--record), the
// kernel emulator runs each chip's kernels on them (--launch-record: every
// GEMM kernel kind, mma.sync on sm_80, wgmma on sm_90a, MFMA on gfx942,
// WMMA on gfx1100; the kernels as accel-nvptx/amdgpu-pipeline make them:
// raise, fuse epilogues, configure, convert), and accel-run --replay
// checks what they wrote. The functions are written as frontends do
// (torch-mlir's fill + matmul + generics into fresh tensors, in-place
// generics, a cast to bf16 / f16); sizes leave remainders in M and N, one
// N is odd (the element-by-element store path), one function is batched,
// one accumulates, one dequantises an i8 matmul's i32 sums, one has two
// batch dimensions.
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: FileCheck %s --check-prefix=WGMMA < %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
//
// The check fails a wrong epilogue: GELU's 0.5 made 0.25 in the sm_80
// kernels fails the replay.
// RUN: sed -e 's/5.000000e-01 : f32/2.500000e-01 : f32/' %t.sm_80.mlir > %t.bad.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.bad.mlir --launch-record %t.rec
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD
// And the emulator refuses to judge an epilogue kernel on its own inputs.
// RUN: not %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir | FileCheck %s --check-prefix=DIRECT

// REC: accel-run: recorded 9 functions

// LAUNCH-COUNT-9: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @linear_gelu_erf
// CHECK: PASS
// CHECK-LABEL: @gelu_tanh_residual
// CHECK: PASS
// CHECK-LABEL: @silu_to_bf16
// CHECK: PASS
// CHECK-LABEL: @relu_row_scale_in_place
// CHECK: PASS
// CHECK-LABEL: @batched_bias
// CHECK: PASS
// CHECK-LABEL: @accumulate_then_bias
// CHECK: PASS
// CHECK-LABEL: @odd_n_bias_to_f16
// CHECK: PASS
// CHECK-LABEL: @int8_dequant_to_bf16
// CHECK: PASS
// CHECK-LABEL: @two_batch_dims_head_scale
// CHECK: PASS
// CHECK: accel-run: 9 of 9 functions passed

// The wgmma kernel applies the epilogue too (not only the mma.sync one).
// WGMMA: nvvm.wgmma.mma_async
// WGMMA: "math.erf"

// BAD-LABEL: @linear_gelu_erf
// BAD: FAIL
// BAD: functions passed

// DIRECT: @linear_gelu_erf_0: FAILED: has an epilogue

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

// torch-mlir's Linear then GELU (erf).
func.func @linear_gelu_erf(%a: tensor<100x64xbf16>, %b: tensor<64x72xbf16>, %bias: tensor<72xf32>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<100x64xbf16>, tensor<64x72xbf16>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  %e1 = tensor.empty() : tensor<100x72xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<100x72xf32>, tensor<72xf32>) outs(%e1 : tensor<100x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<100x72xf32>
  %e2 = tensor.empty() : tensor<100x72xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<100x72xf32>) outs(%e2 : tensor<100x72xf32>) {
  ^bb0(%x: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.70710678 : f32
    %t = arith.mulf %x, %rs2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %x, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}

// GELU (tanh) after a bias, then a residual add; f16 inputs.
func.func @gelu_tanh_residual(%a: tensor<48x40xf16>, %b: tensor<40x64xf16>, %bias: tensor<64xf32>, %res: tensor<48x64xf32>) -> tensor<48x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<48x40xf16>, tensor<40x64xf16>) outs(%c : tensor<48x64xf32>) -> tensor<48x64xf32>
  %e1 = tensor.empty() : tensor<48x64xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<48x64xf32>, tensor<64xf32>) outs(%e1 : tensor<48x64xf32>) {
  ^bb0(%x0: f32, %y: f32, %o: f32):
    %x = arith.addf %x0, %y : f32
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.7978845608 : f32
    %k1 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %k1x3 = arith.mulf %k1, %x3 : f32
    %inner = arith.addf %x, %k1x3 : f32
    %arg = arith.mulf %k0, %inner : f32
    %th = math.tanh %arg : f32
    %p = arith.addf %th, %one : f32
    %h = arith.mulf %x, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<48x64xf32>
  %e2 = tensor.empty() : tensor<48x64xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %res : tensor<48x64xf32>, tensor<48x64xf32>) outs(%e2 : tensor<48x64xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<48x64xf32>
  return %out : tensor<48x64xf32>
}

// SiLU, then the cast to bf16: the kernel writes bf16.
func.func @silu_to_bf16(%a: tensor<67x32xbf16>, %b: tensor<32x80xbf16>) -> tensor<67x80xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x80xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<67x80xf32>) -> tensor<67x80xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<67x32xbf16>, tensor<32x80xbf16>) outs(%c : tensor<67x80xf32>) -> tensor<67x80xf32>
  %e1 = tensor.empty() : tensor<67x80xbf16>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<67x80xf32>) outs(%e1 : tensor<67x80xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %sig = arith.divf %x, %d : f32
    %t = arith.truncf %sig : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<67x80xbf16>
  return %s : tensor<67x80xbf16>
}

// An in-place epilogue on accel.matmul (IREE's form): ReLU, then a
// per-row scale and a splat constant.
func.func @relu_row_scale_in_place(%a: tensor<70x48xf16>, %b: tensor<48x56xf16>, %scale: tensor<70xf32>) -> tensor<70x56xf32> {
  %e = tensor.empty() : tensor<70x56xf32>
  %mm = accel.matmul ins(%a, %b : tensor<70x48xf16>, tensor<48x56xf16>) outs(%e : tensor<70x56xf32>) -> tensor<70x56xf32>
  %two = arith.constant dense<2.0> : tensor<70x56xf32>
  %r = linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%scale, %two : tensor<70xf32>, tensor<70x56xf32>) outs(%mm : tensor<70x56xf32>) {
  ^bb0(%s: f32, %t: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %relu = arith.maximumf %x, %zero : f32
    %y = arith.mulf %relu, %s : f32
    %z = arith.mulf %y, %t : f32
    linalg.yield %z : f32
  } -> tensor<70x56xf32>
  return %r : tensor<70x56xf32>
}

// A batched matmul with a bias shared by the batch.
func.func @batched_bias(%a: tensor<2x33x48xbf16>, %b: tensor<2x48x40xbf16>, %bias: tensor<40xf32>) -> tensor<2x33x40xf32> {
  %e = tensor.empty() : tensor<2x33x40xf32>
  %mm = accel.matmul ins(%a, %b : tensor<2x33x48xbf16>, tensor<2x48x40xbf16>) outs(%e : tensor<2x33x40xf32>) -> tensor<2x33x40xf32>
  %r = linalg.generic {indexing_maps = [#col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bias : tensor<40xf32>) outs(%mm : tensor<2x33x40xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x33x40xf32>
  return %r : tensor<2x33x40xf32>
}

// C = C0 + A.B, then the bias: the epilogue sees the accumulated C.
func.func @accumulate_then_bias(%a: tensor<40x96xbf16>, %b: tensor<96x48xbf16>, %c0: tensor<40x48xf32>, %bias: tensor<48xf32>) -> tensor<40x48xf32> {
  %mm = accel.matmul accumulate ins(%a, %b : tensor<40x96xbf16>, tensor<96x48xbf16>) outs(%c0 : tensor<40x48xf32>) -> tensor<40x48xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<48xf32>) outs(%mm : tensor<40x48xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<40x48xf32>
  return %r : tensor<40x48xf32>
}

// An odd N (B stored [N, K]): C's elements are stored one by one; the
// bias add happens in f32, then the cast to f16.
func.func @odd_n_bias_to_f16(%a: tensor<50x36xf16>, %b: tensor<37x36xf16>, %bias: tensor<37xf32>) -> tensor<50x37xf16> {
  %e = tensor.empty() : tensor<50x37xf32>
  %mm = accel.matmul transpose_b ins(%a, %b : tensor<50x36xf16>, tensor<37x36xf16>) outs(%e : tensor<50x37xf32>) -> tensor<50x37xf32>
  %e1 = tensor.empty() : tensor<50x37xf16>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<50x37xf32>, tensor<37xf32>) outs(%e1 : tensor<50x37xf16>) {
  ^bb0(%x: f32, %y: f32, %o: f16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<50x37xf16>
  return %r : tensor<50x37xf16>
}

// W8A8: an i8 matmul's exact i32 sums dequantised in the epilogue (the
// activation's per-tensor scale, a splat, and the weights' per-channel
// scales) and cast to bf16.
func.func @int8_dequant_to_bf16(%a: tensor<40x64xi8>, %b: tensor<48x64xi8>, %wscale: tensor<48xf32>) -> tensor<40x48xbf16> {
  %e = tensor.empty() : tensor<40x48xi32>
  %mm = accel.matmul transpose_b ins(%a, %b : tensor<40x64xi8>, tensor<48x64xi8>) outs(%e : tensor<40x48xi32>) -> tensor<40x48xi32>
  %ascale = arith.constant dense<0.015625> : tensor<40x48xf32>
  %e1 = tensor.empty() : tensor<40x48xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %ascale, %wscale : tensor<40x48xi32>, tensor<40x48xf32>, tensor<48xf32>) outs(%e1 : tensor<40x48xbf16>) {
  ^bb0(%x: i32, %sa: f32, %sw: f32, %o: bf16):
    %f = arith.sitofp %x : i32 to f32
    %s = arith.mulf %sa, %sw : f32
    %y = arith.mulf %f, %s : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x48xbf16>
  return %r : tensor<40x48xbf16>
}

// Two batch dimensions (batch, heads: collapsed into the grid's z): the
// epilogue's indices split them again, for a per-head scale and a bias.
func.func @two_batch_dims_head_scale(%a: tensor<2x3x17x32xbf16>, %b: tensor<2x3x32x24xbf16>, %hscale: tensor<3xf32>, %bias: tensor<24xf32>) -> tensor<2x3x17x24xf32> {
  %e = tensor.empty() : tensor<2x3x17x24xf32>
  %mm = accel.matmul ins(%a, %b : tensor<2x3x17x32xbf16>, tensor<2x3x32x24xbf16>) outs(%e : tensor<2x3x17x24xf32>) -> tensor<2x3x17x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%hscale, %bias : tensor<3xf32>, tensor<24xf32>) outs(%mm : tensor<2x3x17x24xf32>) {
  ^bb0(%s: f32, %y: f32, %x: f32):
    %m = arith.mulf %x, %s : f32
    %t = arith.addf %m, %y : f32
    linalg.yield %t : f32
  } -> tensor<2x3x17x24xf32>
  return %r : tensor<2x3x17x24xf32>
}
