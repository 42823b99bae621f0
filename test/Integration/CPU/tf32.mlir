// compute = tf32 on the CPU, against the fp64 oracle: accel-lower-precision
// rounds the inputs to TF32 values (the pipeline expands the round trip to
// integer arithmetic, accel-expand-f8-casts) and the f32 kernels multiply
// them; the oracle rounds them with APFloat (to nearest even) and holds the
// result to the f32 matmul gate, so a rounding that differs from it (a
// truncation, a tie to the wrong side) fails. @round returns the rounded
// values themselves: ties to even (1 + 2^-11 -> 1, 1 + 3 2^-11 -> 1 +
// 2^-9), a carry into the exponent, the largest f32 (to inf, as TF32's
// largest is below it), infinities, a subnormal, zeros.
// RUN: accel-opt %s --accel-lower-precision="compute=tf32" -o %t.mlir
// RUN: accel-run %t.mlir --repeat=0 | FileCheck %s
// RUN: accel-run %t.mlir --repeat=0 --num-threads=2 --dist=normal --seed=5 | FileCheck %s
// The error TF32 adds to the f32 program, against the model of its
// roundings (2^-11 of each input; bf16's 2^-8 measures about 8x larger):
// RUN: accel-run %s --repeat=0 --entry=linear --precision-report=compute=tf32 | FileCheck %s --check-prefix=REPORT
// REPORT: precision compute=tf32
// REPORT: @linear result #0: {{.*}} -> PASS
// REPORT: accel-run: precision report passed
// CHECK-LABEL: @linear
// CHECK: PASS
// CHECK-LABEL: @round
// CHECK: max abs err 0.00e+00
// CHECK: PASS

func.func @linear(%x: tensor<67x300xf32>, %w: tensor<300x45xf32>) -> tensor<67x45xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x45xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<67x45xf32>) -> tensor<67x45xf32>
  %r = accel.matmul ins(%x, %w : tensor<67x300xf32>, tensor<300x45xf32>) outs(%o : tensor<67x45xf32>) -> tensor<67x45xf32>
  return %r : tensor<67x45xf32>
}

func.func @round(%unused: tensor<1xf32>) -> tensor<4x4xf32> {
  %v = arith.constant dense<[[1.00048828125, 1.00146484375, 1.9999999, 3.4028235e38],
                             [0x7F800000, 0xFF800000, 1.0e-40, -0.0],
                             [0.0, -1.00048828125, 123456.789, -7.654321e-20],
                             [0x00000001, 3.3895314e38, -1.2345678e-38, 0.1]]> : tensor<4x4xf32>
  %a = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%v : tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to tf32
    %f = arith.extf %t : tf32 to f32
    linalg.yield %f : f32
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
