// REQUIRES: numpy
// The GPU pipelines' allow-tf32 option (PyTorch's allow_tf32) on a
// frontend's f32 program (fill + linalg.matmul + a bias generic, as
// torch-mlir emits nn.Linear; no accel.precision): the pipeline raises the
// matmul, rounds its inputs to TF32 (accel-lower-precision compute=tf32)
// and runs it on the TF32 matrix instruction; accel-run with the same
// option lowers the program it checks the same way, so its oracle reads
// the rounding and holds the kernels to the f32 gate. Without the option
// the kernels stay exact f32 (fma).
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="allow-tf32=1" --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-lower-precision=compute=tf32 --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=TF32 < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="allow-tf32=1" --replay=%t.rec | FileCheck %s
// The same kernels for gfx942 (xf32 MFMA) on the same record:
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-lower-precision=compute=tf32 --convert-elementwise-to-linalg --accel-fuse-epilogues --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --nvptx-pipeline-options="allow-tf32=1" --replay=%t.rec | FileCheck %s
// Without the option the program is the f32 one: its record runs the TF32
// matmul kernel alone (no rounding kernels), on inputs that are not TF32,
// and the f32 program's oracle rejects what the tensor cores compute.
// RUN: rm -rf %t.rec2
// RUN: accel-run %s --target=nvptx --record=%t.rec2 | FileCheck %s --check-prefix=REC
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec2 | FileCheck %s --check-prefix=LAUNCH
// RUN: not accel-run %s --target=nvptx --replay=%t.rec2 | FileCheck %s --check-prefix=BAD

// REC: accel-run: recorded 1 functions

// TF32: mma = "mma.sync"
// TF32-NOT: mma = "fma"

// LAUNCH-NOT: FAILED
// LAUNCH: launched

// CHECK-LABEL: @linear
// CHECK: PASS

// BAD: FAIL

func.func @linear(%x: tensor<64x256xf32>, %w: tensor<256x96xf32>, %b: tensor<96xf32>) -> tensor<64x96xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x256xf32>, tensor<256x96xf32>) outs(%o : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%m: f32, %bb: f32, %out: f32):
    %s = arith.addf %m, %bb : f32
    linalg.yield %s : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}
