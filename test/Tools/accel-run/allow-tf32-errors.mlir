// allow-tf32 in accel-run's GPU pipeline options lowers the program with
// accel-lower-precision{compute=tf32} before the oracle reads it; a
// program that lowering refuses (an accel.precision on an op that is not
// f32) is a located error, exit 1, and no record is left.
// RUN: rm -rf %t.rec
// RUN: not accel-run %s --target=nvptx --nvptx-pipeline-options="allow-tf32=1" --record=%t.rec 2>&1 | FileCheck %s
// RUN: not ls %t.rec
// RUN: not accel-run %s --target=amdgpu --amdgpu-pipeline-options="allow-tf32=1" 2>&1 | FileCheck %s

// CHECK: allow-tf32-errors.mlir:[[@LINE+4]]:8: error: 'accel.precision' applies to f32 ops; this op's inputs are bf16
// CHECK: accel-run: error: allow-tf32: accel-lower-precision failed on '{{.*}}allow-tf32-errors.mlir'

func.func @f(%a: tensor<16x32xbf16>, %b: tensor<32x16xbf16>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %r = accel.matmul ins(%a, %b : tensor<16x32xbf16>, tensor<32x16xbf16>) outs(%c : tensor<16x16xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<16x16xf32>
  return %r : tensor<16x16xf32>
}
