// A matmul whose float weights are a constant the weight-only mode cannot
// quantise is refused where it is written; other matmuls are left alone.
// RUN: accel-opt %s -split-input-file --accel-lower-precision="weight-only=int4 weight-group=64" -verify-diagnostics
// RUN: accel-opt %S/Inputs/weight-only-odd-group.mlir --accel-lower-precision="weight-only=int4 weight-group=3" -verify-diagnostics
// RUN: not accel-opt %s --accel-lower-precision="weight-only=int3" 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: error: accel-lower-precision: weight-only must be int4 or int8, got 'int3'
// RUN: not accel-opt %s --accel-lower-precision="weight-only=int4 weight-group=-2" 2>&1 | FileCheck %s --check-prefix=GROUP
// GROUP: error: accel-lower-precision: weight-group must not be negative (0: per channel), got -2
// RUN: not accel-opt %s --accel-lower-precision="weight-only=int4 compute=bf16" 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: accel-lower-precision: weight-only and compute are separate modes; run the pass once for each
// Weights that are not a constant: nothing to quantise, nothing said.
// RUN: not accel-opt %s -split-input-file --accel-lower-precision="weight-only=int4 weight-group=64" 2>&1 | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func.func @argument_weights
// KEEP: accel.matmul

func.func @group(%a: tensor<2x96xf32>) -> tensor<2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<96x4xf32>
  %c = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{cannot quantise its constant weights (weight-only=int4): the group 64 does not divide K = 96}}
  %0 = accel.matmul ins(%a, %b : tensor<2x96xf32>, tensor<96x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @batched(%a: tensor<2x2x96xf32>) -> tensor<2x2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<2x96x4xf32>
  %c = tensor.empty() : tensor<2x2x4xf32>
  // expected-error @+1 {{cannot quantise its constant weights (weight-only=int4): it needs a 2-D matmul of static shapes}}
  %0 = accel.matmul ins(%a, %b : tensor<2x2x96xf32>, tensor<2x96x4xf32>) outs(%c : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  return %0 : tensor<2x2x4xf32>
}

// -----

func.func @accumulate(%a: tensor<2x96xf32>, %c: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<96x4xf32>
  // expected-error @+1 {{cannot quantise its constant weights (weight-only=int4): it does not accumulate into C or take scales}}
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x96xf32>, tensor<96x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f8(%a: tensor<2x96xf8E4M3FN>) -> tensor<2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<96x4xf8E4M3FN>
  %c = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{cannot quantise its constant weights (weight-only=int4): it needs f32, f16 or bf16 activations}}
  %0 = accel.matmul ins(%a, %b : tensor<2x96xf8E4M3FN>, tensor<96x4xf8E4M3FN>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @bf16_into_f16(%a: tensor<2x96xf16>) -> tensor<2x4xf32> {
  %b = arith.constant dense<0.5> : tensor<96x4xf16>
  %c = tensor.empty() : tensor<2x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<2x96xf16>, tensor<96x4xf16>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  // (f16 activations, f32 C: fine; the group is the only problem here)
  // expected-error @-2 {{the group 64 does not divide K = 96}}
  return %0 : tensor<2x4xf32>
}

// -----

func.func @argument_weights(%a: tensor<2x96xf32>, %b: tensor<96x4xf32>) -> tensor<2x4xf32> {
  %c = tensor.empty() : tensor<2x4xf32>
  %0 = accel.matmul ins(%a, %b : tensor<2x96xf32>, tensor<96x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
