// The fp64 oracle evaluates what frontends write around their matmuls
// (transposes, elementwise and multiply-add generics, batch reshapes) on its
// own; here the CPU pipeline compiles the same ops unfused, so the two are
// checked against each other.
// RUN: accel-run %s --repeat=0 --entry=transpose_generic_reshape,multiply_add_generic,max_reduce,sum_reduce | FileCheck %s
// CHECK-LABEL: @transpose_generic_reshape
// CHECK: PASS
// CHECK-LABEL: @multiply_add_generic
// CHECK: PASS
// A max reduction is exact in any order: replayed (RoundingOracle).
// CHECK-LABEL: @max_reduce
// CHECK: PASS
// A sum is bounded for any order of its additions (gamma_n).
// CHECK-LABEL: @sum_reduce
// CHECK: PASS
// CHECK: accel-run: 4 of 4 functions passed

// What the oracle does not model is an error at the op.
// RUN: not accel-run %s --entry=two_results 2>&1 | FileCheck %s --check-prefix=CHECK-RESULTS
// CHECK-RESULTS: error: 'linalg.generic' op the fp64 oracle models generics on tensors with one result only
// A sum's rounding depends on the kernel's order: not modelled.
// A product's bound is not modelled.
// RUN: not accel-run %s --entry=product_reduce 2>&1 | FileCheck %s --check-prefix=CHECK-REDUCE
// CHECK-REDUCE: error: 'linalg.generic' op the fp64 oracle models elementwise generics (all loops parallel), sums (acc + f(inputs)), maxima and minima (maximumf, minimumf, maxnumf, minnumf of acc and f(inputs)) and matmul-like multiply-adds only
// RUN: not accel-run %s --entry=captured_tensor 2>&1 | FileCheck %s --check-prefix=CHECK-CAPTURED
// CHECK-CAPTURED: error: 'linalg.generic' op the fp64 oracle models captured scalars only
// RUN: not accel-run %s --entry=sin_body 2>&1 | FileCheck %s --check-prefix=CHECK-SIN
// CHECK-SIN: error: 'math.sin' op is not modelled by the fp64 oracle in a linalg.generic body
// RUN: not accel-run %s --entry=dynamic_slice 2>&1 | FileCheck %s --check-prefix=CHECK-SLICE
// CHECK-SLICE: error: 'tensor.extract_slice' op the fp64 oracle needs static offsets, sizes and strides
// RUN: not accel-run %s --entry=dynamic_expand 2>&1 | FileCheck %s --check-prefix=CHECK-DYN
// CHECK-DYN: error: 'tensor.expand_shape' op the fp64 oracle needs static shapes

// [2, 3, 4] -> transpose [0, 2, 1] -> scale by a captured constant and add a
// [4] bias read at 0 along the other loops, select with an i1 mask -> collapse
// to [6, 4] -> expand to [2, 3, 4].
func.func @transpose_generic_reshape(%x: tensor<2x3x4xf32>, %bias: tensor<1x3xf32>, %m: tensor<2x4x3xi1>) -> tensor<2x12xf32> {
  %c = arith.constant 0.75 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %et = tensor.empty() : tensor<2x4x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%et : tensor<2x4x3xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<2x4x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t, %bias, %m : tensor<2x4x3xf32>, tensor<1x3xf32>, tensor<2x4x3xi1>) outs(%e : tensor<2x4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %k: i1, %o: f32):
    %s = arith.mulf %a, %c : f32
    %n = arith.negf %b : f32
    %d = arith.subf %s, %n : f32
    %r = arith.select %k, %d, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<2x4x3xf32>
  %col = tensor.collapse_shape %g [[0], [1, 2]] : tensor<2x4x3xf32> into tensor<2x12xf32>
  return %col : tensor<2x12xf32>
}

// A [B, H] batched multiply-add generic, mixed precision (bf16 extended to
// f32), into a zero fill.
func.func @multiply_add_generic(%a: tensor<2x3x5x7xbf16>, %b: tensor<2x3x6x7xbf16>) -> tensor<2x3x5x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5x6xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5x6xf32>) -> tensor<2x3x5x6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, n, k)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<2x3x5x7xbf16>, tensor<2x3x6x7xbf16>) outs(%f : tensor<2x3x5x6xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %xf = arith.extf %x : bf16 to f32
    %yf = arith.extf %y : bf16 to f32
    %p = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x3x5x6xf32>
  return %r : tensor<2x3x5x6xf32>
}

func.func @two_results(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e, %e : tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32, %p: f32):
    linalg.yield %a, %a : f32, f32
  } -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0 : tensor<4xf32>
}

func.func @max_reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sum_reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @product_reduce(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %p = arith.mulf %a, %o : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @captured_tensor(%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = tensor.extract %t[%c0] : tensor<4xf32>
    %s = arith.addf %a, %v : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @sin_body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %v = math.sin %a : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @dynamic_slice(%x: tensor<8xf32>) -> tensor<2xf32> {
  %i = arith.constant 3 : index
  %s = tensor.extract_slice %x[%i] [2] [1] : tensor<8xf32> to tensor<2xf32>
  return %s : tensor<2xf32>
}

func.func @dynamic_expand(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %n = arith.constant 2 : index
  %xd = tensor.cast %x : tensor<6xf32> to tensor<?xf32>
  %e = tensor.expand_shape %xd [[0, 1]] output_shape [%n, 3] : tensor<?xf32> into tensor<?x3xf32>
  %r = tensor.cast %e : tensor<?x3xf32> to tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
