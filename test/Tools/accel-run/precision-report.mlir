// accel-run --precision-report: each option string lowers the functions
// with accel-lower-precision, runs them on the f32 run's inputs and compares
// with the f32 functions' fp64 reference. The normwise gate is what the
// lowering's roundings are expected to cost (a model, docs/numerics.md);
// each line prints the error, the gate and error / gate.
// RUN: accel-run %s --repeat=0 --entry=mm --precision-report=compute=bf16 --precision-report="compute=f8E4M3FN output=bf16" | FileCheck %s
// CHECK: @mm
// CHECK: accel-run: 1 of 1 functions passed
// CHECK: precision compute=bf16 (normwise error against each f32 reference; gate from the modelled roundings)
// CHECK-NEXT: @mm result #0: max abs err {{.*}}, normwise rel err {{.*}}, gate {{.*}}, err/gate 0.{{[0-9]+}} -> PASS
// CHECK: precision compute=f8E4M3FN output=bf16 (normwise error against each f32 reference; gate from the modelled roundings)
// CHECK-NEXT: @mm result #0: {{.*}}, err/gate 0.{{[0-9]+}} -> PASS
// CHECK: accel-run: precision report passed

// A scale 10 % off fails. debug-scale-error (test only) makes
// accel-lower-precision dequantise B of a matmul and V of an attention with
// their scale times 1.1, so the result is 10 % off: fp8 E4M3 and int8,
// dynamic scales (the attentions emulated) and given ones (an fp8
// attention). The lowered code's own contract cannot see it: the oracle
// replays the skewed scale (the last RUN lines).
// RUN: not accel-run %s --repeat=0 --precision-report="compute=f8E4M3FN on-unsupported=emulate debug-scale-error=0.1" --precision-report="compute=f8E4M3FN scales=given scale-values=0.01 debug-scale-error=0.1" --precision-report="compute=i8 on-unsupported=emulate debug-scale-error=0.1" | FileCheck %s --check-prefix=SKEW
// SKEW: accel-run: 2 of 2 functions passed
// SKEW: precision compute=f8E4M3FN on-unsupported=emulate debug-scale-error=0.1
// SKEW-NEXT: @mm result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW-NEXT: @att result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW: precision compute=f8E4M3FN scales=given scale-values=0.01 debug-scale-error=0.1
// SKEW-NEXT: @mm result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW-NEXT: @att result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW: precision compute=i8 on-unsupported=emulate debug-scale-error=0.1
// SKEW-NEXT: @mm result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW-NEXT: @att result #0: {{.*}}, err/gate {{[1-9][0-9]*\.[0-9]+}} -> FAIL
// SKEW: accel-run: precision report failed
// The same lowerings with factor 0 pass.
// RUN: accel-run %s --repeat=0 --precision-report="compute=f8E4M3FN on-unsupported=emulate debug-scale-error=0" --precision-report="compute=f8E4M3FN scales=given scale-values=0.01 debug-scale-error=0" --precision-report="compute=i8 on-unsupported=emulate debug-scale-error=0" | FileCheck %s --check-prefix=NOSKEW
// NOSKEW-COUNT-6: err/gate 0.{{[0-9]+}} -> PASS
// NOSKEW-NOT: FAIL
// NOSKEW: accel-run: precision report passed
// RUN: accel-opt %s --accel-lower-precision="compute=i8 on-unsupported=emulate debug-scale-error=0.1" -o %t.skewed.mlir
// RUN: accel-run %t.skewed.mlir --repeat=0 | FileCheck %s --check-prefix=REPLAYED
// REPLAYED: accel-run: 2 of 2 functions passed

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
