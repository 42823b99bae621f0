// RUN: accel-opt %s --split-input-file --verify-diagnostics --convert-accel-to-gpu

// Generics a GEMM kernel cannot apply to its C in registers.

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @c_also_returned(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> (tensor<32x32xf32>, tensor<32x32xf32>) {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  // expected-error @below {{cannot be the GPU epilogue of the accel.matmul whose result it reads: the matmul's result has other users; the kernel keeps C in registers and stores only the epilogue's result}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e1 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %mm, %r : tensor<32x32xf32>, tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @two_results(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  // expected-error @below {{it has 2 results; an epilogue yields one value per element of C}}
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e1, %e1 : tensor<32x32xf32>, tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32, %p: f32):
    linalg.yield %x, %x : f32, f32
  } -> (tensor<32x32xf32>, tensor<32x32xf32>)
  return %r#0 : tensor<32x32xf32>
}

// -----

func.func @transposed_result(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  // expected-error @below {{its result is not C's shape, indexed as C}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e1 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @c_twice(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xf32>
  // expected-error @below {{it reads C through two operands}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %mm : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e1 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.mulf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// (2 d0) mod 40 reaches 39, past the bias's 32 elements (linalg's verifier
// only looks at the last iteration, 62 mod 40 = 22).
func.func @skewed_bias(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %bias: tensor<32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{operand #0 is indexed by a map whose results are not loop indices, constants, or sums, multiples, quotients and remainders of them that stay inside it}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ((d0 * 2) mod 40)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<32xf32>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
// d1 - d0 is negative for some elements (the kernel's index arithmetic is
// unsigned).
func.func @negative_index(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %bias: tensor<64xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{operand #0 is indexed by a map whose results are not loop indices, constants, or sums, multiples, quotients and remainders of them that stay inside it}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1 - d0 + 31)>, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<64xf32>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @dynamic_bias(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %bias: tensor<?x32xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{operand #0 is not a tensor of static shape or a splat constant}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<?x32xf32>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @lookup_in_body(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %t: tensor<8xf32>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{its body holds a 'tensor.extract', which is not a scalar arith or math op}}
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%mm : tensor<32x32xf32>) {
  ^bb0(%x: f32):
    %c0 = arith.constant 0 : index
    %y = tensor.extract %t[%c0] : tensor<8xf32>
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @vector_in_body(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{its body holds a 'arith.constant' on non-scalar values}}
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%mm : tensor<32x32xf32>) {
  ^bb0(%x: f32):
    %v = arith.constant dense<1.0> : vector<2xf32>
    linalg.yield %x : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @captured_scalar(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %s: f32) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{its body uses a value defined outside it that is not a scalar constant}}
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%mm : tensor<32x32xf32>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @uninitialized_operand(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %junk = tensor.empty() : tensor<32x32xf32>
  // expected-error @below {{reads operand #1 in the GPU epilogue of an accel.matmul, which is not a kernel buffer (a function argument or the result of another kernel)}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %junk : tensor<32x32xf32>, tensor<32x32xf32>) outs(%e : tensor<32x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

func.func @standalone_transpose(%x: tensor<32x16xf32>) -> tensor<16x32xf32> {
  %e = tensor.empty() : tensor<16x32xf32>
  // expected-error @below {{has no GPU lowering (convert-accel-to-gpu compiles functions of accel.matmul ops, each with an optional elementwise epilogue on its result, accel.dequant_matmul, accel.attention and accel.paged_attention ops, elementwise linalg.generic ops, and row reductions with the ops around them; accel-decompose-softmax makes accel.softmax those)}}
  %t = linalg.transpose ins(%x : tensor<32x16xf32>) outs(%e : tensor<16x32xf32>) permutation = [1, 0]
  return %t : tensor<16x32xf32>
}

// -----

// A row sum that starts from an uninitialised tensor: the row kernel would
// read it.
func.func @standalone_row_sum(%x: tensor<32x16xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<32xf32>
  // expected-error @below {{reads operand #1 in a GPU row kernel, which is not a kernel buffer (a function argument or the result of another kernel)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<32x16xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @standalone_reads_junk(%x: tensor<32x16xf32>) -> tensor<32x16xf32> {
  %junk = tensor.empty() : tensor<32x16xf32>
  %e = tensor.empty() : tensor<32x16xf32>
  // expected-error @below {{reads operand #1 in a GPU elementwise kernel, which is not a kernel buffer (a function argument or the result of another kernel)}}
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %junk : tensor<32x16xf32>, tensor<32x16xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_result(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>) -> tensor<32x32xi1> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %e1 = tensor.empty() : tensor<32x32xi1>
  // expected-error @below {{its result's elements are not f32, f16, bf16, fp8, i8 or i32}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<32x32xf32>) outs(%e1 : tensor<32x32xi1>) {
  ^bb0(%x: f32, %o: i1):
    %zero = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %x, %zero : f32
    linalg.yield %p : i1
  } -> tensor<32x32xi1>
  return %r : tensor<32x32xi1>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @mask_operand(%a: tensor<32x32xf16>, %b: tensor<32x32xf16>, %m: tensor<32x32xi1>) -> tensor<32x32xf32> {
  %e = tensor.empty() : tensor<32x32xf32>
  %mm = accel.matmul ins(%a, %b : tensor<32x32xf16>, tensor<32x32xf16>) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-error @below {{operand #0 has elements that are not f32, f16, bf16, fp8, i8 or i32}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m : tensor<32x32xi1>) outs(%mm : tensor<32x32xf32>) {
  ^bb0(%keep: i1, %x: f32):
    %zero = arith.constant 0.0 : f32
    %s = arith.select %keep, %x, %zero : f32
    linalg.yield %s : f32
  } -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// A parallel loop that the result does not index: every element written
// several times, which no elementwise kernel does.
func.func @standalone_extra_loop(%x: tensor<32x16x4xf32>) -> tensor<32x16xf32> {
  %e = tensor.empty() : tensor<32x16xf32>
  // expected-error @below {{has no GPU elementwise kernel: it is not elementwise over its result (3 loops, 3 parallel)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<32x16x4xf32>) outs(%e : tensor<32x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<32x16xf32>
  return %r : tensor<32x16xf32>
}
