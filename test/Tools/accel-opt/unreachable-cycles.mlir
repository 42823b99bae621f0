// Unreachable code that uses its own results (docs/bad-input-catalogue.md,
// row 13): `%x = addi %x, %c0` and an accel.matmul whose init is its own
// result, in a dead cycle of blocks. The verifier accepts them (they do not
// dominate anything reachable); every pass and pipeline must finish on them
// instead of folding in a loop or crashing. lit has no timeout here: a hang
// would stall the suite.

// RUN: accel-opt %s --canonicalize | FileCheck %s --check-prefix=CANON
// RUN: accel-opt %s --accel-raise --accel-fuse-attention --accel-tile | FileCheck %s --check-prefix=CANON
// RUN: accel-opt %s --accel-lower-precision=compute=bf16 -o /dev/null
// RUN: accel-opt %s --convert-accel-to-linalg -o /dev/null
// RUN: accel-opt %s --accel-decompose-attention -o /dev/null
// RUN: accel-opt %s --accel-roofline="target=h100 report=-" -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=ROOFLINE
// RUN: accel-opt %s --accel-cpu-pipeline | FileCheck %s --check-prefix=CPU
// RUN: accel-opt %s --accel-systolic-pipeline | FileCheck %s --check-prefix=SYSTOLIC
// RUN: accel-opt %s --accel-nvptx-pipeline -o /dev/null

// CANON-LABEL: func.func @dead_cycle
// CANON: accel.matmul
// ROOFLINE: roofline on h100
// CPU: llvm.func @dead_cycle
// SYSTOLIC: systolic.program @dead_cycle

func.func @dead_cycle(%a: tensor<64x32xbf16>, %b: tensor<32x48xbf16>) -> tensor<64x48xf32> {
  %c = tensor.empty() : tensor<64x48xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %0 : tensor<64x48xf32>
^bb1:
  %c0 = arith.constant 0 : i32
  %x = arith.addi %x, %c0 : i32
  %t = accel.matmul ins(%a, %b : tensor<64x32xbf16>, tensor<32x48xbf16>) outs(%t : tensor<64x48xf32>) -> tensor<64x48xf32>
  %s = accel.softmax dimension(1) ins(%t : tensor<64x48xf32>) outs(%s : tensor<64x48xf32>) -> tensor<64x48xf32>
  cf.br ^bb2
^bb2:
  cf.br ^bb1
}
