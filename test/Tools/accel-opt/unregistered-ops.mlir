// Ops of unknown dialects inside our kernels (docs/bad-input-catalogue.md,
// row 9). Without --allow-unregistered-dialect they are a parse error
// (driver.mlir). With it, the transformations treat them as opaque values:
// they keep them and the accel ops around them, and never fuse a chain
// through one; the lowerings that must compile every op reject them with a
// located error and exit code 1, never a crash.

// RUN: accel-opt --allow-unregistered-dialect %s --accel-fuse-attention | FileCheck %s --check-prefix=FUSE
// RUN: accel-opt --allow-unregistered-dialect %s --accel-tile=target=h100 | FileCheck %s --check-prefix=KEEP
// RUN: accel-opt --allow-unregistered-dialect %s --accel-raise --accel-lower-precision=compute=bf16 | FileCheck %s --check-prefix=KEEP
// RUN: accel-opt --allow-unregistered-dialect %s --convert-accel-to-linalg | FileCheck %s --check-prefix=KEEP
// RUN: accel-opt --allow-unregistered-dialect %s --accel-roofline="target=h100 report=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=ROOFLINE

// FUSE-LABEL: func.func @chain_through_unknown
// FUSE-NOT: accel.attention
// FUSE: "foo.scale"
// FUSE: accel.softmax
// KEEP-LABEL: func.func @chain_through_unknown
// KEEP: "foo.scale"
// KEEP-LABEL: func.func @matmul_of_unknown
// KEEP: "foo.op"
// KEEP: "foo.use"
// ROOFLINE: roofline on h100
// ROOFLINE: accel.matmul
// ROOFLINE: accel.softmax
// ROOFLINE: accel.matmul
// ROOFLINE: accel.matmul

// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt --allow-unregistered-dialect %s --accel-systolic-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SYSTOLIC
// SYSTOLIC: unregistered-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'foo.{{[a-z]+}}' op has no systolic lowering
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt --allow-unregistered-dialect %s --accel-nvptx-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=NVPTX
// NVPTX: unregistered-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'foo.{{[a-z]+}}' op has no GPU lowering
// RUN: %python %S/../accel-systolic-translate/Inputs/exit-code.py 1 accel-opt --allow-unregistered-dialect %s --accel-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: unregistered-ops.mlir:{{[0-9]+}}:{{[0-9]+}}: error: op was not bufferized

// Q·Kᵀ -> an unknown scaling op -> softmax -> ·V: not an attention.
func.func @chain_through_unknown(%q: tensor<1x2x16x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x16x8xf32> {
  %e1 = tensor.empty() : tensor<1x2x16x24xf32>
  %s = accel.matmul transpose_b ins(%q, %k : tensor<1x2x16x8xf32>, tensor<1x2x24x8xf32>) outs(%e1 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %ss = "foo.scale"(%s) {by = 0.35 : f32} : (tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e2 = tensor.empty() : tensor<1x2x16x24xf32>
  %p = accel.softmax dimension(3) ins(%ss : tensor<1x2x16x24xf32>) outs(%e2 : tensor<1x2x16x24xf32>) -> tensor<1x2x16x24xf32>
  %e3 = tensor.empty() : tensor<1x2x16x8xf32>
  %o = accel.matmul ins(%p, %v : tensor<1x2x16x24xf32>, tensor<1x2x24x8xf32>) outs(%e3 : tensor<1x2x16x8xf32>) -> tensor<1x2x16x8xf32>
  return %o : tensor<1x2x16x8xf32>
}

// An unknown op makes an operand and consumes the result.
func.func @matmul_of_unknown(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>) -> tensor<64x48xf32> {
  %a2 = "foo.op"(%a) : (tensor<64x32xf32>) -> tensor<64x32xf32>
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul ins(%a2, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %1 = "foo.use"(%0) : (tensor<64x48xf32>) -> tensor<64x48xf32>
  return %1 : tensor<64x48xf32>
}
