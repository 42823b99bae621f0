// RUN: accel-opt %s --split-input-file --verify-diagnostics --convert-accel-to-gpu

// Reductions and the generics around them that no GPU row kernel computes.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @two_reduced_loops(%x: tensor<4x8x16xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{reduces over 2 loops; a GPU row kernel reduces over one (reshape the reduced dimensions into one)}}
  %r = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d0)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @transposed_rows(%x: tensor<4x8x16xf32>, %z: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @below {{cannot be computed by a GPU row kernel: it does not have one result indexed by its parallel loops in order}}
  %r = linalg.generic {indexing_maps = [#id3, affine_map<(d0, d1, d2) -> (d1, d0)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x8x16xf32>) outs(%z : tensor<8x4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}

// -----

func.func @not_associative(%x: tensor<4x16xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot be computed by a GPU row kernel: it does not yield arith.addf, mulf, maximumf, minimumf, maxnumf or minnumf of its accumulator; a GPU row kernel combines partial results in any order, which only an associative combination allows}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.subf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @accumulator_twice(%x: tensor<4x16xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{its accumulator is used other than once, as one operand of the yielded combination}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.mulf %a, %acc : f32
    %s = arith.addf %t, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @integer_sum(%x: tensor<4x16xi32>, %z: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @below {{its accumulator is not f32, f16 or bf16 (a GPU row kernel combines floats of those types)}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xi32>) outs(%z : tensor<4xi32>) {
  ^bb0(%a: i32, %acc: i32):
    %s = arith.addi %a, %acc : i32
    linalg.yield %s : i32
  } -> tensor<4xi32>
  return %r : tensor<4xi32>
}

// -----

func.func @f64_output(%x: tensor<4x16xf32>, %z: tensor<4xf32>) -> tensor<4x16xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x16xf64>
  // expected-error @below {{its result, which the kernel stores, is not a tensor of static shape of f32, f16, bf16, fp8, i8 or i32}}
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %r : tensor<4x16xf32>, tensor<4xf32>) outs(%e : tensor<4x16xf64>) {
  ^bb0(%a: f32, %s: f32, %o: f64):
    %q = arith.divf %a, %s : f32
    %d = arith.extf %q : f32 to f64
    linalg.yield %d : f64
  } -> tensor<4x16xf64>
  return %y : tensor<4x16xf64>
}

// -----

func.func @body_reads_a_tensor(%x: tensor<4x16xf32>, %z: tensor<4xf32>, %t: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @below {{cannot be computed by a GPU row kernel: its body holds a 'tensor.extract', which is not a scalar arith or math op}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x16xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %c0 = arith.constant 0 : index
    %w = tensor.extract %t[%c0] : tensor<2xf32>
    %m = arith.mulf %a, %w : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
