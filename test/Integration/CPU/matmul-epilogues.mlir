// Matmul epilogues as frontends write them (linalg.generic chains after the
// matmul: bias, GELU with erf or tanh, SiLU, residual, per-channel scale,
// a cast), compiled fused (accel-fuse-epilogues, then applied to the C
// register tiles by accel-cpu-vectorize-contractions: the cheap ones by
// default, the math functions too with fuse-expensive-epilogues) and checked against
// the fp64 oracle evaluating the unfused program. Sizes leave remainder
// tiles along M and N (200 = 33 x 6 + 2 rows, 300 = 4 x 64 + 44 columns);
// the small cache tile splits K into 11 blocks (the last one partial), so
// only the peeled last block's tiles may apply the epilogue.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=3 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=4 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=5 --cpu-pipeline-options=cache-tile=48,64,64 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=6 --num-threads=2 --cpu-pipeline-options=cache-tile=48,64,64 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=7 --cpu-pipeline-options=fuse-epilogues=false | FileCheck %s
// GELU, SiLU (math functions, divisions) in the register tiles too:
// RUN: accel-run %s --repeat=0 --seed=8 --cpu-pipeline-options=fuse-expensive-epilogues=1 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=9 --num-threads=2 --cpu-pipeline-options="fuse-expensive-epilogues=1 cache-tile=48,64,64" | FileCheck %s

// CHECK-LABEL: @linear_gelu_erf
// CHECK: PASS
// CHECK-LABEL: @linear_gelu_tanh_residual
// CHECK: PASS
// CHECK-LABEL: @silu
// CHECK: PASS
// CHECK-LABEL: @relu_channel_scale_in_place
// CHECK: PASS
// CHECK-LABEL: @batched_bias
// CHECK: PASS
// CHECK-LABEL: @accumulate_then_bias
// CHECK: PASS
// CHECK-LABEL: @bias_cast_bf16
// CHECK: PASS
// CHECK-LABEL: @result_also_returned
// CHECK: PASS
// CHECK-LABEL: @tensor_arith_epilogue
// CHECK: PASS
// CHECK-LABEL: @masked_out_of_place
// CHECK: PASS
// CHECK: accel-run: 10 of 10 functions passed

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>

// torch-mlir's Linear then GELU (erf): fill, matmul, a bias generic into a
// fresh tensor, a GELU generic into another.
func.func @linear_gelu_erf(%a: tensor<200x100xf32>, %b: tensor<100x300xf32>, %bias: tensor<300xf32>) -> tensor<200x300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x300xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<200x300xf32>) -> tensor<200x300xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<200x100xf32>, tensor<100x300xf32>) outs(%c : tensor<200x300xf32>) -> tensor<200x300xf32>
  %e1 = tensor.empty() : tensor<200x300xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<200x300xf32>, tensor<300xf32>) outs(%e1 : tensor<200x300xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<200x300xf32>
  %e2 = tensor.empty() : tensor<200x300xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<200x300xf32>) outs(%e2 : tensor<200x300xf32>) {
  ^bb0(%x: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %t = arith.mulf %x, %rsqrt2 : f32
    %erf = math.erf %t : f32
    %p = arith.addf %erf, %one : f32
    %h = arith.mulf %x, %half : f32
    %y = arith.mulf %h, %p : f32
    linalg.yield %y : f32
  } -> tensor<200x300xf32>
  return %g : tensor<200x300xf32>
}

// GELU (tanh) then a residual add, K = 700.
func.func @linear_gelu_tanh_residual(%a: tensor<96x700xf32>, %b: tensor<700x128xf32>, %bias: tensor<128xf32>, %res: tensor<96x128xf32>) -> tensor<96x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x128xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<96x128xf32>) -> tensor<96x128xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<96x700xf32>, tensor<700x128xf32>) outs(%c : tensor<96x128xf32>) -> tensor<96x128xf32>
  %e1 = tensor.empty() : tensor<96x128xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<96x128xf32>, tensor<128xf32>) outs(%e1 : tensor<96x128xf32>) {
  ^bb0(%m: f32, %y: f32, %o: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %x = arith.addf %m, %y : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %cx3 = arith.mulf %x3, %k1 : f32
    %in = arith.addf %x, %cx3 : f32
    %arg = arith.mulf %in, %k0 : f32
    %th = math.tanh %arg : f32
    %p = arith.addf %th, %one : f32
    %h = arith.mulf %x, %half : f32
    %r = arith.mulf %h, %p : f32
    linalg.yield %r : f32
  } -> tensor<96x128xf32>
  %e2 = tensor.empty() : tensor<96x128xf32>
  %out = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %res : tensor<96x128xf32>, tensor<96x128xf32>) outs(%e2 : tensor<96x128xf32>) {
  ^bb0(%x: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %r : f32
    linalg.yield %s : f32
  } -> tensor<96x128xf32>
  return %out : tensor<96x128xf32>
}

// accel.matmul, then SiLU: x / (1 + exp(-x)).
func.func @silu(%a: tensor<67x40xf32>, %b: tensor<40x129xf32>) -> tensor<67x129xf32> {
  %c = tensor.empty() : tensor<67x129xf32>
  %mm = accel.matmul ins(%a, %b : tensor<67x40xf32>, tensor<40x129xf32>) outs(%c : tensor<67x129xf32>) -> tensor<67x129xf32>
  %e = tensor.empty() : tensor<67x129xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<67x129xf32>) outs(%e : tensor<67x129xf32>) {
  ^bb0(%x: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %x : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %y = arith.divf %x, %d : f32
    linalg.yield %y : f32
  } -> tensor<67x129xf32>
  return %s : tensor<67x129xf32>
}

// IREE's form: the epilogue already updates the matmul's result in place;
// ReLU after a per-channel scale, through a compare and select.
func.func @relu_channel_scale_in_place(%a: tensor<130x64xf32>, %b: tensor<64x96xf32>, %scale: tensor<96xf32>) -> tensor<130x96xf32> {
  %c = tensor.empty() : tensor<130x96xf32>
  %mm = accel.matmul ins(%a, %b : tensor<130x64xf32>, tensor<64x96xf32>) outs(%c : tensor<130x96xf32>) -> tensor<130x96xf32>
  %r = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%scale : tensor<96xf32>) outs(%mm : tensor<130x96xf32>) {
  ^bb0(%s: f32, %x: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.mulf %x, %s : f32
    %pos = arith.cmpf ogt, %y, %zero : f32
    %r = arith.select %pos, %y, %zero : f32
    linalg.yield %r : f32
  } -> tensor<130x96xf32>
  return %r : tensor<130x96xf32>
}

// A batched matmul with a bias over its columns.
func.func @batched_bias(%a: tensor<3x50x70xf32>, %b: tensor<3x70x90xf32>, %bias: tensor<90xf32>) -> tensor<3x50x90xf32> {
  %c = tensor.empty() : tensor<3x50x90xf32>
  %mm = accel.matmul ins(%a, %b : tensor<3x50x70xf32>, tensor<3x70x90xf32>) outs(%c : tensor<3x50x90xf32>) -> tensor<3x50x90xf32>
  %e = tensor.empty() : tensor<3x50x90xf32>
  %r = linalg.generic {indexing_maps = [#id3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<3x50x90xf32>, tensor<90xf32>) outs(%e : tensor<3x50x90xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<3x50x90xf32>
  return %r : tensor<3x50x90xf32>
}

// C = A B + C0, then a bias: the epilogue follows the accumulation.
func.func @accumulate_then_bias(%a: tensor<40x300xf32>, %b: tensor<300x72xf32>, %c0: tensor<40x72xf32>, %bias: tensor<72xf32>) -> tensor<40x72xf32> {
  %mm = accel.matmul accumulate ins(%a, %b : tensor<40x300xf32>, tensor<300x72xf32>) outs(%c0 : tensor<40x72xf32>) -> tensor<40x72xf32>
  %e = tensor.empty() : tensor<40x72xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<40x72xf32>, tensor<72xf32>) outs(%e : tensor<40x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<40x72xf32>
  return %r : tensor<40x72xf32>
}

// A bias then a cast to bf16: one generic, out of place (another type).
func.func @bias_cast_bf16(%a: tensor<33x20xf32>, %b: tensor<20x65xf32>, %bias: tensor<65xf32>) -> tensor<33x65xbf16> {
  %c = tensor.empty() : tensor<33x65xf32>
  %mm = accel.matmul ins(%a, %b : tensor<33x20xf32>, tensor<20x65xf32>) outs(%c : tensor<33x65xf32>) -> tensor<33x65xf32>
  %e = tensor.empty() : tensor<33x65xf32>
  %biased = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<33x65xf32>, tensor<65xf32>) outs(%e : tensor<33x65xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<33x65xf32>
  %e2 = tensor.empty() : tensor<33x65xbf16>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<33x65xf32>) outs(%e2 : tensor<33x65xbf16>) {
  ^bb0(%x: f32, %o: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<33x65xbf16>
  return %r : tensor<33x65xbf16>
}

// The matmul's result is returned too: the epilogue must not overwrite it.
func.func @result_also_returned(%a: tensor<30x50xf32>, %b: tensor<50x70xf32>, %bias: tensor<70xf32>) -> (tensor<30x70xf32>, tensor<30x70xf32>) {
  %c = tensor.empty() : tensor<30x70xf32>
  %mm = accel.matmul ins(%a, %b : tensor<30x50xf32>, tensor<50x70xf32>) outs(%c : tensor<30x70xf32>) -> tensor<30x70xf32>
  %e = tensor.empty() : tensor<30x70xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<30x70xf32>, tensor<70xf32>) outs(%e : tensor<30x70xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %y : f32
    linalg.yield %z : f32
  } -> tensor<30x70xf32>
  return %mm, %r : tensor<30x70xf32>, tensor<30x70xf32>
}

// The epilogue as elementwise arith on tensors (a residual add, then a
// scale): converted to linalg and fused like the generics; the oracle
// carries the matmul's bound through the tensor ops.
func.func @tensor_arith_epilogue(%a: tensor<50x90xf32>, %b: tensor<90x70xf32>, %res: tensor<50x70xf32>, %scale: tensor<50x70xf32>) -> tensor<50x70xf32> {
  %c = tensor.empty() : tensor<50x70xf32>
  %mm = accel.matmul ins(%a, %b : tensor<50x90xf32>, tensor<90x70xf32>) outs(%c : tensor<50x70xf32>) -> tensor<50x70xf32>
  %s = arith.addf %mm, %res : tensor<50x70xf32>
  %t = arith.mulf %s, %scale : tensor<50x70xf32>
  return %t : tensor<50x70xf32>
}

// An out-of-place consumer reading a boolean mask (an attention's masked
// logits, the differential sweep's case): not applied to the register tiles
// (a vector of i1 loads packed bits), computed right.
func.func @masked_out_of_place(%a: tensor<33x16xf32>, %b: tensor<16x100xf32>, %m: tensor<33x100xi1>) -> tensor<33x100xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<33x100xf32>
  %c = linalg.fill ins(%z : f32) outs(%c0 : tensor<33x100xf32>) -> tensor<33x100xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<33x16xf32>, tensor<16x100xf32>) outs(%c : tensor<33x100xf32>) -> tensor<33x100xf32>
  %e = tensor.empty() : tensor<33x100xf32>
  %half = arith.constant 0.5 : f32
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %m : tensor<33x100xf32>, tensor<33x100xi1>) outs(%e : tensor<33x100xf32>) {
  ^bb0(%x: f32, %k: i1, %o: f32):
    %s = arith.mulf %x, %half : f32
    %t = arith.select %k, %s, %z : f32
    linalg.yield %t : f32
  } -> tensor<33x100xf32>
  return %r : tensor<33x100xf32>
}
