// RUN: accel-opt %s -split-input-file --accel-decompose-attention="index-failure-callee=taken" -verify-diagnostics -o /dev/null

// index-failure-callee names a function `() -> ()` that does not return: a
// symbol of another kind or type is refused at the op.
memref.global "private" @taken : memref<1xf32>
func.func @not_a_function(%q: tensor<1x2x1x8xf32>, %kc: tensor<4x4x1x8xf32>, %vc: tensor<4x4x1x8xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>, %o: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  // expected-error @+1 {{index-failure-callee 'taken' names a symbol that is not a function}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xf32>, tensor<4x4x1x8xf32>, tensor<4x4x1x8xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32>
  return %r : tensor<1x2x1x8xf32>
}

// -----

func.func private @taken(i32)
func.func @wrong_type(%q: tensor<1x2x1x8xf32>, %kc: tensor<4x4x1x8xf32>, %vc: tensor<4x4x1x8xf32>, %bt: tensor<1x2xi32>, %len: tensor<1xi32>, %o: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  // expected-error @+1 {{index-failure-callee 'taken' has type '(i32) -> ()', expected () -> ()}}
  %r = accel.paged_attention ins(%q, %kc, %vc : tensor<1x2x1x8xf32>, tensor<4x4x1x8xf32>, tensor<4x4x1x8xf32>) block_table(%bt : tensor<1x2xi32>) kv_lengths(%len : tensor<1xi32>) outs(%o : tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32>
  return %r : tensor<1x2x1x8xf32>
}
