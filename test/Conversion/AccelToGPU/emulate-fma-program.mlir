// REQUIRES: numpy
// f32 programs as frontends write them reach the GPUs (the FMA kernel, no
// TF32 rounding), checked against the fp64 oracle of each whole function
// without a GPU: accel-run records the inputs (--record), the kernel
// emulator runs each chip's kernels on them (--launch-record: NVIDIA sm_80,
// AMD gfx942 wave64 and gfx1100 wave32; the kernels as the GPU pipelines
// make them: raise, fuse epilogues, configure, convert), and accel-run
// --replay checks what they wrote against the f32 matmul gate. torch-mlir's
// fill + matmul + generics (Linear + GELU), a batched matmul with a
// residual, a matmul with B as [N, K] (linalg.matmul's transposing maps) and
// an odd N with a cast to bf16.
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
//
// The gate fails TF32: the sm_80 kernels with their FMAs' multiplicands
// rounded to TF32 (--tf32-fma, what a TF32 tensor-core kernel computes)
// fail the replay.
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec --tf32-fma
// RUN: not accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s --check-prefix=BAD

// REC: accel-run: recorded 4 functions

// KERNEL-COUNT-4: mma = "fma"

// LAUNCH-COUNT-4: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @linear_gelu
// CHECK: PASS
// CHECK-LABEL: @batched_residual
// CHECK: PASS
// CHECK-LABEL: @bt_maps
// CHECK: PASS
// CHECK-LABEL: @odd_n_to_bf16
// CHECK: PASS

// BAD-LABEL: @linear_gelu
// BAD: FAIL

#id = affine_map<(i, j) -> (i, j)>
#col = affine_map<(i, j) -> (j)>
#id3 = affine_map<(b, i, j) -> (b, i, j)>

// Linear + GELU (tanh), f32 throughout.
func.func @linear_gelu(%a: tensor<100x64xf32>, %b: tensor<64x72xf32>, %bias: tensor<72xf32>) -> tensor<100x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<100x72xf32>) -> tensor<100x72xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<100x64xf32>, tensor<64x72xf32>) outs(%c : tensor<100x72xf32>) -> tensor<100x72xf32>
  %e1 = tensor.empty() : tensor<100x72xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<100x72xf32>, tensor<72xf32>) outs(%e1 : tensor<100x72xf32>) {
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
  } -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}

// A batched matmul, then a residual add.
func.func @batched_residual(%a: tensor<2x33x40xf32>, %b: tensor<2x40x36xf32>, %res: tensor<2x33x36xf32>) -> tensor<2x33x36xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x33x36xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x33x36xf32>) -> tensor<2x33x36xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<2x33x40xf32>, tensor<2x40x36xf32>) outs(%c : tensor<2x33x36xf32>) -> tensor<2x33x36xf32>
  %e1 = tensor.empty() : tensor<2x33x36xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %res : tensor<2x33x36xf32>, tensor<2x33x36xf32>) outs(%e1 : tensor<2x33x36xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<2x33x36xf32>
  return %r : tensor<2x33x36xf32>
}

// B as [N, K]: linalg.matmul with transposing indexing maps (torch-mlir's
// x @ W^T).
func.func @bt_maps(%a: tensor<40x48xf32>, %w: tensor<56x48xf32>) -> tensor<40x56xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x56xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x56xf32>) -> tensor<40x56xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %w : tensor<40x48xf32>, tensor<56x48xf32>) outs(%c : tensor<40x56xf32>) -> tensor<40x56xf32>
  return %mm : tensor<40x56xf32>
}

// An odd N (element-by-element stores) with a bias, cast to bf16.
func.func @odd_n_to_bf16(%a: tensor<50x36xf32>, %b: tensor<36x37xf32>, %bias: tensor<37xf32>) -> tensor<50x37xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<50x37xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<50x37xf32>) -> tensor<50x37xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<50x36xf32>, tensor<36x37xf32>) outs(%c : tensor<50x37xf32>) -> tensor<50x37xf32>
  %e1 = tensor.empty() : tensor<50x37xbf16>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<50x37xf32>, tensor<37xf32>) outs(%e1 : tensor<50x37xbf16>) {
  ^bb0(%x: f32, %y: f32, %o: bf16):
    %s = arith.addf %x, %y : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<50x37xbf16>
  return %r : tensor<50x37xbf16>
}
