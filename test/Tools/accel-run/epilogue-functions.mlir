// The fp64 oracle's elementwise functions (math.exp, tanh, erf, sqrt,
// rsqrt, absf; arith.cmpf and select, maxnumf) against the CPU kernels'
// vectorized polynomials, on exact inputs (uniform in [-1, 1], and normal).
// The oracle allows each function about twice the largest error measured
// here (StructuredOracle.cpp: tanh 4.26 and erf 4.07 unit roundoffs, gates
// of 9); with a quarter of the allowance (gates of 3) tanh and erf fail.
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=9 | FileCheck %s
// RUN: not accel-run %s --repeat=0 --entry=functions --oracle-function-ulps-scale=0.25 | FileCheck %s --check-prefix=TIGHT
// TIGHT: FAIL
// CHECK-LABEL: @functions
// CHECK: PASS
// CHECK-LABEL: @relu_select
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

#id = affine_map<(d0) -> (d0)>

func.func @functions(%x: tensor<8192xf32>) -> (tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>) {
  %e0 = tensor.empty() : tensor<8192xf32>
  %r0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8192xf32>) outs(%e0 : tensor<8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  %e1 = tensor.empty() : tensor<8192xf32>
  %r1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8192xf32>) outs(%e1 : tensor<8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.tanh %a : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  %e2 = tensor.empty() : tensor<8192xf32>
  %r2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8192xf32>) outs(%e2 : tensor<8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.erf %a : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  %e3 = tensor.empty() : tensor<8192xf32>
  %r3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8192xf32>) outs(%e3 : tensor<8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %pos = math.absf %a : f32
    %y = math.sqrt %pos : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  %e4 = tensor.empty() : tensor<8192xf32>
  %r4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8192xf32>) outs(%e4 : tensor<8192xf32>) {
  ^bb0(%a: f32, %o: f32):
    %pos = math.absf %a : f32
    %y = math.rsqrt %pos : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  return %r0, %r1, %r2, %r3, %r4 : tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>, tensor<8192xf32>
}

// ReLU as a compare and a select, a leaky variant through maxnumf.
func.func @relu_select(%x: tensor<1000xf32>) -> tensor<1000xf32> {
  %e = tensor.empty() : tensor<1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<1000xf32>) outs(%e : tensor<1000xf32>) {
  ^bb0(%a: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %slope = arith.constant 0.01 : f32
    %gt = arith.cmpf ogt, %a, %zero : f32
    %relu = arith.select %gt, %a, %zero : f32
    %leak = arith.mulf %a, %slope : f32
    %y = arith.maxnumf %relu, %leak : f32
    linalg.yield %y : f32
  } -> tensor<1000xf32>
  return %r : tensor<1000xf32>
}
