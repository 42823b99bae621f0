// An fp8 store without a clamp, past the type's range, after a matmul (the
// case issue 27's note left open): E4M3FN has no infinity, so the rounding
// gives NaN, and E5M2 gives ±inf. The fp64 oracle now expects exactly that
// (tools/accel-run/RoundingOracle.cpp, the elementwise ops on the matmul's
// inexact result; StructuredOracle.cpp has the same rule); before, it
// expected the unrounded value and failed the kernels (got nan, expected
// -9.1e+03). Kernels with the epilogue in the matmul's registers and
// without (fuse-epilogues=0).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --cpu-pipeline-options=fuse-epilogues=0 --seed=3 | FileCheck %s
// CHECK-LABEL: @overflow_e4m3
// CHECK: PASS
// CHECK-LABEL: @overflow_e5m2
// CHECK: PASS
// CHECK: accel-run: 2 of 2 functions passed

func.func @overflow_e4m3(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) -> tensor<8x16xf8E4M3FN> {
  %e = tensor.empty() : tensor<8x16xf32>
  %c = accel.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = tensor.empty() : tensor<8x16xf8E4M3FN>
  %s = arith.constant 2000.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x16xf32>) outs(%o : tensor<8x16xf8E4M3FN>) {
  ^bb0(%x: f32, %y: f8E4M3FN):
    %m = arith.mulf %x, %s : f32
    %t = arith.truncf %m : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<8x16xf8E4M3FN>
  return %q : tensor<8x16xf8E4M3FN>
}

func.func @overflow_e5m2(%a: tensor<8x64xf32>, %b: tensor<64x16xf32>) -> tensor<8x16xf8E5M2> {
  %e = tensor.empty() : tensor<8x16xf32>
  %c = accel.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = tensor.empty() : tensor<8x16xf8E5M2>
  %s = arith.constant 3.0e5 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<8x16xf32>) outs(%o : tensor<8x16xf8E5M2>) {
  ^bb0(%x: f32, %y: f8E5M2):
    %m = arith.mulf %x, %s : f32
    %t = arith.truncf %m : f32 to f8E5M2
    linalg.yield %t : f8E5M2
  } -> tensor<8x16xf8E5M2>
  return %q : tensor<8x16xf8E5M2>
}
