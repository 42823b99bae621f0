// REQUIRES: numpy
// A frontend's unfused attention (torch-mlir / IREE linalg: batch_matmul
// with a transposed K, a scale and an additive mask in a generic,
// linalg.softmax, batch_matmul, and the reshapes around 4-D tensors)
// reaches both GPU vendors: the GPU pipelines run accel-fuse-attention
// after accel-raise, as the CPU pipeline does, and the kernels view the
// reshaped function arguments and results in place (a reshape names its
// source's buffer). Checked against the fp64 oracle of the chain as
// written, without a GPU: record, launch the kernels in the emulator,
// replay (as emulate-epilogue.mlir). The same chains in f32 take the fma
// attention kernel.
// RUN: rm -rf %t.rec
// RUN: accel-run %s --target=nvptx --record=%t.rec | FileCheck %s --check-prefix=REC
// RUN: accel-opt %s --accel-nvptx-pipeline="chip=sm_80" -o /dev/null
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-gpu-configure="chip=sm_80" --convert-accel-to-gpu="chip=sm_80" --mlir-print-op-generic -o %t.sm_80.mlir
// RUN: FileCheck %s --check-prefix=KERNEL < %t.sm_80.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.sm_80.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-gpu-configure="chip=gfx942" --convert-accel-to-gpu="chip=gfx942" --mlir-print-op-generic -o %t.gfx942.mlir
// RUN: %numpy_python %S/Inputs/emulate_kernels.py %t.gfx942.mlir --launch-record %t.rec | FileCheck %s --check-prefix=LAUNCH
// RUN: accel-run %s --target=nvptx --replay=%t.rec | FileCheck %s
// Without the fusion the chain has no GPU kernel.
// RUN: not accel-opt %s --accel-raise --convert-accel-to-gpu 2>&1 | FileCheck %s --check-prefix=UNFUSED

// REC: accel-run: recorded 4 functions

// One attention kernel per function, on the arguments' own buffers (the
// 4-D mask too), writing the returned (reshaped) result.
// KERNEL: accel.launch = {{.*}}args = ["arg0", "arg1", "arg2", "result0"]
// KERNEL: accel.launch = {{.*}}args = ["arg0", "arg1", "arg2", "arg3", "result0"]
// The f32 chains: the fma attention kernel, 4 lanes a query.
// KERNEL: accel.launch = {{.*}}args = ["arg0", "arg1", "arg2", "result0"], block = array<i64: 256, 1, 1>{{.*}}kind = "attention", mma = "fma"
// KERNEL: accel.launch = {{.*}}args = ["arg0", "arg1", "arg2", "arg3", "result0"], block = array<i64: 256, 1, 1>{{.*}}kind = "attention", mask = "additive", mma = "fma"

// LAUNCH-COUNT-4: launched
// LAUNCH-NOT: FAILED

// CHECK-LABEL: @bmm_bf16
// CHECK: PASS
// CHECK-LABEL: @torch_4d_collapsed_bf16
// CHECK: PASS
// CHECK-LABEL: @bmm_f32
// CHECK: PASS
// CHECK-LABEL: @torch_4d_collapsed_f32
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

// UNFUSED: has no GPU lowering

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bmm_bf16(%q: tensor<4x16x16xbf16>, %k: tensor<4x24x16xbf16>, %v: tensor<4x24x16xbf16>) -> tensor<4x16x16xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e1 = tensor.empty() : tensor<4x16x24xbf16>
  %f1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x16xbf16>, tensor<4x24x16xbf16>) outs(%f1 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %c = arith.constant dense<0.5> : tensor<4x16x24xbf16>
  %ss = arith.mulf %s, %c : tensor<4x16x24xbf16>
  %e3 = tensor.empty() : tensor<4x16x24xbf16>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xbf16>) outs(%e3 : tensor<4x16x24xbf16>) -> tensor<4x16x24xbf16>
  %e4 = tensor.empty() : tensor<4x16x16xbf16>
  %f4 = linalg.fill ins(%zero : bf16) outs(%e4 : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xbf16>, tensor<4x24x16xbf16>) outs(%f4 : tensor<4x16x16xbf16>) -> tensor<4x16x16xbf16>
  return %o : tensor<4x16x16xbf16>
}
func.func @torch_4d_collapsed_bf16(%q: tensor<2x3x16x16xbf16>, %k: tensor<2x3x24x16xbf16>, %v: tensor<2x3x24x16xbf16>, %mask: tensor<2x1x1x24xbf16>) -> tensor<2x3x16x16xbf16> {
  %zero = arith.constant 0.0 : bf16
  %et = tensor.empty() : tensor<2x3x16x24xbf16>
  %kt = linalg.transpose ins(%k : tensor<2x3x24x16xbf16>) outs(%et : tensor<2x3x16x24xbf16>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x16x16xbf16> into tensor<6x16x16xbf16>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x16x24xbf16> into tensor<6x16x24xbf16>
  %e1 = tensor.empty() : tensor<6x16x24xbf16>
  %f1 = linalg.fill ins(%zero : bf16) outs(%e1 : tensor<6x16x24xbf16>) -> tensor<6x16x24xbf16>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<6x16x16xbf16>, tensor<6x16x24xbf16>) outs(%f1 : tensor<6x16x24xbf16>) -> tensor<6x16x24xbf16>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 24] : tensor<6x16x24xbf16> into tensor<2x3x16x24xbf16>
  %c = arith.constant dense<0.125> : tensor<bf16>
  %e2 = tensor.empty() : tensor<2x3x16x24xbf16>
  %ss = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %c, %mask : tensor<2x3x16x24xbf16>, tensor<bf16>, tensor<2x1x1x24xbf16>) outs(%e2 : tensor<2x3x16x24xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %m: bf16, %o: bf16):
    %x = arith.mulf %a, %b : bf16
    %y = arith.addf %x, %m : bf16
    linalg.yield %y : bf16
  } -> tensor<2x3x16x24xbf16>
  %e3 = tensor.empty() : tensor<2x3x16x24xbf16>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<2x3x16x24xbf16>) outs(%e3 : tensor<2x3x16x24xbf16>) -> tensor<2x3x16x24xbf16>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x3x16x24xbf16> into tensor<6x16x24xbf16>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x3x24x16xbf16> into tensor<6x24x16xbf16>
  %e4 = tensor.empty() : tensor<6x16x16xbf16>
  %f4 = linalg.fill ins(%zero : bf16) outs(%e4 : tensor<6x16x16xbf16>) -> tensor<6x16x16xbf16>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<6x16x24xbf16>, tensor<6x24x16xbf16>) outs(%f4 : tensor<6x16x16xbf16>) -> tensor<6x16x16xbf16>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 16] : tensor<6x16x16xbf16> into tensor<2x3x16x16xbf16>
  return %o : tensor<2x3x16x16xbf16>
}
func.func @bmm_f32(%q: tensor<4x16x16xf32>, %k: tensor<4x24x16xf32>, %v: tensor<4x24x16xf32>) -> tensor<4x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %s = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
         ins(%q, %k : tensor<4x16x16xf32>, tensor<4x24x16xf32>) outs(%f1 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %c = arith.constant dense<0.5> : tensor<4x16x24xf32>
  %ss = arith.mulf %s, %c : tensor<4x16x24xf32>
  %e3 = tensor.empty() : tensor<4x16x24xf32>
  %p = linalg.softmax dimension(2) ins(%ss : tensor<4x16x24xf32>) outs(%e3 : tensor<4x16x24xf32>) -> tensor<4x16x24xf32>
  %e4 = tensor.empty() : tensor<4x16x16xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<4x16x24xf32>, tensor<4x24x16xf32>) outs(%f4 : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %o : tensor<4x16x16xf32>
}
func.func @torch_4d_collapsed_f32(%q: tensor<2x3x16x16xf32>, %k: tensor<2x3x24x16xf32>, %v: tensor<2x3x24x16xf32>, %mask: tensor<2x1x1x24xf32>) -> tensor<2x3x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<2x3x16x24xf32>
  %kt = linalg.transpose ins(%k : tensor<2x3x24x16xf32>) outs(%et : tensor<2x3x16x24xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x3x16x16xf32> into tensor<6x16x16xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x3x16x24xf32> into tensor<6x16x24xf32>
  %e1 = tensor.empty() : tensor<6x16x24xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<6x16x16xf32>, tensor<6x16x24xf32>) outs(%f1 : tensor<6x16x24xf32>) -> tensor<6x16x24xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 24] : tensor<6x16x24xf32> into tensor<2x3x16x24xf32>
  %c = arith.constant dense<0.125> : tensor<f32>
  %e2 = tensor.empty() : tensor<2x3x16x24xf32>
  %ss = linalg.generic {indexing_maps = [#id4, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%s, %c, %mask : tensor<2x3x16x24xf32>, tensor<f32>, tensor<2x1x1x24xf32>) outs(%e2 : tensor<2x3x16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %m: f32, %o: f32):
    %x = arith.mulf %a, %b : f32
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  } -> tensor<2x3x16x24xf32>
  %e3 = tensor.empty() : tensor<2x3x16x24xf32>
  %p = linalg.softmax dimension(3) ins(%ss : tensor<2x3x16x24xf32>) outs(%e3 : tensor<2x3x16x24xf32>) -> tensor<2x3x16x24xf32>
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x3x16x24xf32> into tensor<6x16x24xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x3x24x16xf32> into tensor<6x24x16xf32>
  %e4 = tensor.empty() : tensor<6x16x16xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<6x16x16xf32>) -> tensor<6x16x16xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<6x16x24xf32>, tensor<6x24x16xf32>) outs(%f4 : tensor<6x16x16xf32>) -> tensor<6x16x16xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 3, 16, 16] : tensor<6x16x16xf32> into tensor<2x3x16x16xf32>
  return %o : tensor<2x3x16x16xf32>
}
