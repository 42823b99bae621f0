// An fp8 output with saturation as a matmul's epilogue on the CPU: the
// product scaled, clamped to E4M3FN's largest finite value (448) and
// rounded to it; the conversion alone would make NaN of what overflows.
// The GPU epilogues store f32, f16, bf16, i8 and i32 only (their integer
// outputs: test/Conversion/AccelToGPU/emulate-quantized-output.mlir).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --seed=7 --dist=normal | FileCheck %s

// CHECK-LABEL: @saturate_e4m3
// CHECK: result #0 tensor<32x48xf8E4M3FN>: {{.*}} -> PASS
// CHECK: PASS
func.func @saturate_e4m3(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>) -> tensor<32x48xf8E4M3FN> {
  %e = tensor.empty() : tensor<32x48xf32>
  %c = accel.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %o = tensor.empty() : tensor<32x48xf8E4M3FN>
  %s = arith.constant 200.0 : f32
  %lo = arith.constant -448.0 : f32
  %hi = arith.constant 448.0 : f32
  %q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<32x48xf32>) outs(%o : tensor<32x48xf8E4M3FN>) {
  ^bb0(%x: f32, %y: f8E4M3FN):
    %m = arith.mulf %x, %s : f32
    %c1 = arith.maximumf %m, %lo : f32
    %c2 = arith.minimumf %c1, %hi : f32
    %t = arith.truncf %c2 : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<32x48xf8E4M3FN>
  return %q : tensor<32x48xf8E4M3FN>
}
