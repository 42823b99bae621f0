// REQUIRES: numpy
// Elementwise linalg.generic ops with no matmul under them become GPU
// kernels of their own (one thread per element, 256-thread blocks, the
// last block guarded): SwiGLU's product of a SiLU'd gate and the up
// projection in bf16, a residual add with a broadcast bias, a batched cast
// to bf16, elementwise arith on tensors (turned into a generic by the
// pipeline). Checked against the fp64 oracle through the kernel emulator
// on NVIDIA and AMD kernels (record, launch, replay: emulate-epilogue.mlir
// describes the round trip).
// The same functions on the CPU (where a function of arith on tensors alone
// is gated by the rounding of its element type, not 0).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --convert-elementwise-to-linalg --accel-fuse-epilogues --linalg-fuse-elementwise-ops --accel-gpu-configure="chip=gfx1100" --convert-accel-to-gpu="chip=gfx1100" --mlir-print-op-generic -o %t.gfx1100.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx1100.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// The whole back ends take them.
// RUN: accel-opt %s --accel-nvptx-pipeline="chip=sm_90a" -o /dev/null
// RUN: accel-opt %s --accel-amdgpu-pipeline="chip=gfx942" -o /dev/null

// REC: accel-run: recorded 4 functions

// KERNEL: accel.launch = {{.*}}grid = array<i64: 27, 1, 1>{{.*}}kind = "elementwise"

// LAUNCH-COUNT-4: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @swiglu_bf16
// CHECK: PASS
// CHECK-LABEL: @residual_bias
// CHECK: PASS
// CHECK-LABEL: @batched_cast
// CHECK: PASS
// CHECK-LABEL: @tensor_arith
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>

// silu(gate) * up: 67 x 101 = 6767 elements, 27 blocks, the last partial.
func.func @swiglu_bf16(%gate: tensor<67x101xbf16>, %up: tensor<67x101xbf16>) -> tensor<67x101xbf16> {
  %e = tensor.empty() : tensor<67x101xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%gate, %up : tensor<67x101xbf16>, tensor<67x101xbf16>) outs(%e : tensor<67x101xbf16>) {
  ^bb0(%g: bf16, %u: bf16, %o: bf16):
    %gf = arith.extf %g : bf16 to f32
    %uf = arith.extf %u : bf16 to f32
    %one = arith.constant 1.0 : f32
    %n = arith.negf %gf : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %silu = arith.divf %gf, %d : f32
    %y = arith.mulf %silu, %uf : f32
    %t = arith.truncf %y : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<67x101xbf16>
  return %r : tensor<67x101xbf16>
}

// x + residual + bias[column].
func.func @residual_bias(%x: tensor<30x70xf32>, %res: tensor<30x70xf32>, %bias: tensor<70xf32>) -> tensor<30x70xf32> {
  %e = tensor.empty() : tensor<30x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %res, %bias : tensor<30x70xf32>, tensor<30x70xf32>, tensor<70xf32>) outs(%e : tensor<30x70xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %c : f32
    linalg.yield %t : f32
  } -> tensor<30x70xf32>
  return %r : tensor<30x70xf32>
}

// A 3-D cast, f32 to bf16.
func.func @batched_cast(%x: tensor<3x17x33xf32>) -> tensor<3x17x33xbf16> {
  %e = tensor.empty() : tensor<3x17x33xbf16>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<3x17x33xf32>) outs(%e : tensor<3x17x33xbf16>) {
  ^bb0(%a: f32, %o: bf16):
    %t = arith.truncf %a : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<3x17x33xbf16>
  return %r : tensor<3x17x33xbf16>
}

// Elementwise arith on tensors, as frontends also write it (fused into
// one generic; a multiply-add the back end may contract, which the
// oracle's bound allows).
func.func @tensor_arith(%x: tensor<40x50xf32>, %y: tensor<40x50xf32>) -> tensor<40x50xf32> {
  %p = arith.mulf %x, %y : tensor<40x50xf32>
  %s = arith.addf %p, %x : tensor<40x50xf32>
  return %s : tensor<40x50xf32>
}
