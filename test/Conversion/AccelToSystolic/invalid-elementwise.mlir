// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-systolic
// What the systolic target's vector unit does not run
// (SystolicElementwise.h), each a located error naming the op and why.

#id2 = affine_map<(i, j) -> (i, j)>

func.func @tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit has add, sub, mul, div, max (maximumf, a ReLU's select), exp, rsqrt and negation ('math.tanh' in its body)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @transposed(%x: tensor<8x4xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: operand #0 is read transposed (the dimensions of an elementwise kernel's inputs keep the output's order)}}
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @reads_init(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: its body reads its output's initial value, a tensor.empty}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

// Two reduced loops (a whole-tensor sum): the unit reduces one row.
func.func @reduction(%x: tensor<4x8xf32>, %y: tensor<f32>) -> tensor<f32> {
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit runs elementwise generics (parallel loops, one result in the loops' order) and reductions over the last loop}}
  %0 = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%y : tensor<f32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %o : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @int_output(%x: tensor<4x8xf32>) -> tensor<4x8xi32> {
  %e = tensor.empty() : tensor<4x8xi32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit writes static f32 or bf16 tensors}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xi32>) {
  ^bb0(%v: f32, %o: i32):
    %i = arith.fptosi %v : f32 to i32
    linalg.yield %i : i32
  } -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @int_input(%x: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: operand #0 is not a static f32 or bf16 tensor (the DMA moves those into the accumulator)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: i32, %o: f32):
    %f = arith.sitofp %v : i32 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @not_relu(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit selects only as a ReLU does: select(cmpf ugt/uge x, c), x, c) with a constant c ('arith.select' in its body)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %c = arith.cmpf ugt, %v, %w : f32
    %s = arith.select %c, %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @cmp_alone(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit has no comparisons (only a ReLU's select reads one) ('arith.cmpf' in its body)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ugt, %v, %z : f32
    %f = arith.uitofp %c : i1 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @round_to_f16(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit rounds to bf16 only ('arith.truncf' in its body)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.truncf %v : f32 to f16
    %f = arith.extf %t : f16 to f32
    linalg.yield %f : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @int_constant(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: the vector unit takes float constants only ('arith.constant' in its body)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = arith.constant 3 : i32
    %f = arith.sitofp %i : i32 to f32
    %s = arith.addf %v, %f : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @strided_map(%x: tensor<4x8xf32>, %b: tensor<2xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering: operand #1 is read through a map other than a broadcast}}
  %0 = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (1)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<2xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @i8_program(%a: tensor<4x4xi8>, %b: tensor<4x4xi8>, %x: tensor<4x4xf32>) -> (tensor<4x4xi32>, tensor<4x4xf32>) {
  %c = tensor.empty() : tensor<4x4xi32>
  %0 = accel.matmul ins(%a, %b : tensor<4x4xi8>, tensor<4x4xi8>) outs(%c : tensor<4x4xi32>) -> tensor<4x4xi32>
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-error @below {{'linalg.generic' op has no systolic lowering in a program of i8 matmuls: the vector unit works on an f32 accumulator, theirs is i32}}
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xi32>, tensor<4x4xf32>
}

// -----

#id2 = affine_map<(i, j) -> (i, j)>

func.func @constant_input(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %k = arith.constant dense<1.0> : tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  // expected-error @below {{'linalg.generic' op reads a value that is not in DRAM (a function argument or the result of an op of the program)}}
  %0 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %k : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
