// accel-run --precision-report: each option string lowers the functions
// with accel-lower-precision, runs them on the f32 run's inputs and compares
// with the f32 functions' fp64 reference (normwise gate 4·u_in + u_out).
// RUN: accel-run %s --repeat=0 --entry=mm --precision-report=compute=bf16 --precision-report="compute=f8E4M3FN output=bf16" | FileCheck %s
// CHECK: @mm
// CHECK: accel-run: 1 of 1 functions passed
// CHECK: precision compute=bf16 (normwise gate 1.56e-02 against each f32 reference)
// CHECK-NEXT: @mm result #0: max abs err {{.*}}, normwise rel err {{.*}} -> PASS
// CHECK: precision compute=f8E4M3FN output=bf16 (normwise gate 2.54e-01 against each f32 reference)
// CHECK-NEXT: @mm result #0: {{.*}} -> PASS
// CHECK: accel-run: precision report passed

// A lowering the pass refuses, and an option string it cannot parse.
// RUN: not accel-run %s --repeat=0 --entry=att --precision-report=compute=i8 2>&1 | FileCheck %s --check-prefix=REFUSED
// REFUSED: error: accel.attention has no int8 form
// REFUSED: error: --precision-report 'compute=i8' cannot lower '{{.*}}precision-report.mlir'
// RUN: not accel-run %s --repeat=0 --entry=mm --precision-report=precision=bf16 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: bad --precision-report 'precision=bf16':

func.func @mm(%a: tensor<33x77xf32>, %b: tensor<77x19xf32>) -> tensor<33x19xf32> {
  %c = tensor.empty() : tensor<33x19xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x77xf32>, tensor<77x19xf32>) outs(%c : tensor<33x19xf32>) -> tensor<33x19xf32>
  return %0 : tensor<33x19xf32>
}

func.func @att(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %o = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
