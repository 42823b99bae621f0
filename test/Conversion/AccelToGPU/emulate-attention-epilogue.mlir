// REQUIRES: numpy
// Attention epilogues on the GPUs: the elementwise generic that is the only
// user of an accel.attention's O (a residual add, a cast, a per-head
// scale) is applied by the attention kernel to each element of O before
// the store, which then writes the generic's result instead of O: no
// elementwise kernel, no O in memory. Every attention kernel takes it: the
// f32 `fma` kernel (both vendors), mma.sync (sm_80), wgmma (sm_90a),
// MFMA (gfx942) and WMMA (gfx1100). accel-run records the inputs, the
// emulator runs each chip's kernels, and accel-run --replay checks them
// against the fp64 oracle of the whole function (ragged Sq, GQA, causal).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_90a" --convert-accel-to-gpu="chip=sm_90a" --mlir-print-op-generic -o %t.sm_90a.mlir
// RUN: FileCheck %s --check-prefix=HOPPER < %t.sm_90a.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_90a.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// The CPU runs the same functions:
// RUN: accel-run %s --repeat=0 | FileCheck %s

// REC: accel-run: recorded 4 functions

// One kernel a function, the attention's, with the epilogue's buffers:
// KERNEL-NOT: elementwise
// KERNEL: epilogue = 1 : i64{{.*}}kind = "attention"{{.*}}sym_name = "residual_bf16_0"
// KERNEL: epilogue = 0 : i64{{.*}}kind = "attention", mma = "fma"{{.*}}sym_name = "cast_f32_0"
// KERNEL: epilogue = 1 : i64{{.*}}kind = "attention"{{.*}}sym_name = "gqa_causal_scale_0"
// The first attention stores O; the second's epilogue reads it:
// KERNEL-NOT: epilogue = {{.*}}sym_name = "two_inputs_0"
// KERNEL: epilogue = 1 : i64{{.*}}kind = "attention"{{.*}}sym_name = "two_inputs_1"
// KERNEL-NOT: elementwise
// HOPPER: mma = "wgmma"{{.*}}sym_name = "residual_bf16_0"

// LAUNCH-NOT: FAILED
// LAUNCH: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @residual_bf16
// CHECK: PASS
// CHECK-LABEL: @cast_f32
// CHECK: PASS
// CHECK-LABEL: @gqa_causal_scale
// CHECK: PASS
// CHECK-LABEL: @two_inputs
// CHECK: PASS

// bf16 attention (Sq 96: a partial query block) + an f32 residual.
func.func @residual_bf16(%q: tensor<1x4x96x64xbf16>, %k: tensor<1x4x80x64xbf16>, %v: tensor<1x4x80x64xbf16>, %res: tensor<1x4x96x64xf32>) -> tensor<1x4x96x64xf32> {
  %e = tensor.empty() : tensor<1x4x96x64xbf16>
  %o = accel.attention ins(%q, %k, %v : tensor<1x4x96x64xbf16>, tensor<1x4x80x64xbf16>, tensor<1x4x80x64xbf16>) outs(%e : tensor<1x4x96x64xbf16>) -> tensor<1x4x96x64xbf16>
  %f = tensor.empty() : tensor<1x4x96x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %res : tensor<1x4x96x64xbf16>, tensor<1x4x96x64xf32>) outs(%f : tensor<1x4x96x64xf32>) {
  ^bb0(%x: bf16, %y: f32, %out: f32):
    %w = arith.extf %x : bf16 to f32
    %s = arith.addf %w, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x4x96x64xf32>
  return %r : tensor<1x4x96x64xf32>
}

// f32 attention (the fma kernel) with its output cast to bf16.
func.func @cast_f32(%q: tensor<2x2x40x32xf32>, %k: tensor<2x2x50x32xf32>, %v: tensor<2x2x50x32xf32>) -> tensor<2x2x40x32xbf16> {
  %e = tensor.empty() : tensor<2x2x40x32xf32>
  %o = accel.attention ins(%q, %k, %v : tensor<2x2x40x32xf32>, tensor<2x2x50x32xf32>, tensor<2x2x50x32xf32>) outs(%e : tensor<2x2x40x32xf32>) -> tensor<2x2x40x32xf32>
  %f = tensor.empty() : tensor<2x2x40x32xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o : tensor<2x2x40x32xf32>) outs(%f : tensor<2x2x40x32xbf16>) {
  ^bb0(%x: f32, %out: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<2x2x40x32xbf16>
  return %r : tensor<2x2x40x32xbf16>
}

// bf16 GQA (8 query heads on 2 KV heads), causal, f32 O times a per-head
// scale (a broadcast operand).
func.func @gqa_causal_scale(%q: tensor<1x8x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>, %scale: tensor<8xf32>) -> tensor<1x8x64x64xf32> {
  %e = tensor.empty() : tensor<1x8x64x64xf32>
  %o = accel.attention causal ins(%q, %k, %v : tensor<1x8x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) outs(%e : tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (h)>, affine_map<(b, h, s, d) -> (b, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %scale : tensor<1x8x64x64xf32>, tensor<8xf32>) outs(%e : tensor<1x8x64x64xf32>) {
  ^bb0(%x: f32, %s: f32, %out: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<1x8x64x64xf32>
  return %r : tensor<1x8x64x64xf32>
}

// Two attentions whose outputs one generic adds: the later attention's
// epilogue, which reads the earlier one's stored O.
func.func @two_inputs(%q: tensor<1x2x32x64xbf16>, %k: tensor<1x2x32x64xbf16>, %v: tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xf32> {
  %e = tensor.empty() : tensor<1x2x32x64xf32>
  %o1 = accel.attention ins(%q, %k, %v : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>) outs(%e : tensor<1x2x32x64xf32>) -> tensor<1x2x32x64xf32>
  %o2 = accel.attention causal ins(%q, %k, %v : tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>) outs(%e : tensor<1x2x32x64xf32>) -> tensor<1x2x32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>, affine_map<(b, h, s, d) -> (b, h, s, d)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o1, %o2 : tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32>) outs(%e : tensor<1x2x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.subf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x2x32x64xf32>
  return %r : tensor<1x2x32x64xf32>
}
