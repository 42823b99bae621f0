// RUN: accel-opt %s -split-input-file -verify-diagnostics

// Malformed custom syntax is a located parse error.

func.func @matmul_missing_outs(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{expected 'outs'}}
  %0 = accel.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @matmul_one_type(%a: tensor<4x8xf32>, %c: tensor<4x4xf32>) {
  // expected-error @+1 {{expected ','}}
  %0 = accel.matmul ins(%a, %a : tensor<4x8xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @softmax_no_dimension(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{expected 'dimension'}}
  %0 = accel.softmax ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_unknown_keyword(%q: tensor<1x1x4x8xf32>) {
  // expected-error @+1 {{expected 'ins'}}
  %0 = accel.attention sliding ins(%q, %q, %q : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%q : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return
}

// -----

func.func @attention_scale_not_float(%q: tensor<1x1x4x8xf32>) {
  // expected-error @+1 {{invalid kind of attribute specified}}
  %0 = accel.attention scale("big") ins(%q, %q, %q : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) outs(%q : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  return
}
