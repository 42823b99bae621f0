// accel.matmul (and linalg.matmul, raised to it) on AMD's FNUZ fp8 formats (f8E4M3FNUZ: bias 8, largest 240;
// f8E5M2FNUZ: bias 16, largest 57344; no infinities, no -0, one NaN at
// 0x80), pure and mixed within the family, into f32, f16 and bf16, at odd
// sizes (partial register and cache tiles), on the CPU: the kernel decodes
// them with accel-expand-f8-casts, the fp64 oracle with APFloat, and the
// matmul bound gates the result (bit-exact on the exact tier).
// RUN: accel-run %s --repeat=0 | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=exact | FileCheck %s
// RUN: accel-run %s --repeat=0 --dist=normal --seed=2 | FileCheck %s
// RUN: accel-run %s --repeat=0 --num-threads=2 --seed=3 | FileCheck %s
// CHECK-LABEL: @mixed_bf16
// CHECK: result #0 tensor<37x23xbf16>: {{.*}} -> PASS
// CHECK-LABEL: @e4m3fnuz_f32
// CHECK: result #0 tensor<33x17xf32>: {{.*}} -> PASS
// CHECK-LABEL: @e5m2fnuz_f16
// CHECK: result #0 tensor<5x31xf16>: {{.*}} -> PASS
// CHECK-LABEL: @mixed_transposed_f32
// CHECK: result #0 tensor<19x27xf32>: {{.*}} -> PASS
// CHECK-LABEL: @scaled_accumulate_f32
// CHECK: result #0 tensor<2x9x11xf32>: {{.*}} -> PASS
// CHECK-LABEL: @linalg_mixed_f32
// CHECK: result #0 tensor<13x9xf32>: {{.*}} -> PASS
// CHECK: accel-run: 6 of 6 functions passed

// The NaN (code 0x80) in A[1, 5] makes row 1 of C NaN and nothing else
// (the oracle demands NaN exactly where it has one, finite values
// elsewhere); the kernel's own output, printed, shows the row's edges.
// RUN: rm -rf %t && mkdir -p %t
// RUN: accel-run %s --repeat=0 --entry=mixed_bf16 --poison=0:75:nan --save-outputs=%t | FileCheck %s --check-prefix=PASS
// RUN: %python %S/print_npy.py %t/mixed_bf16.0.npy | FileCheck %s --check-prefix=ROW
// ROW: mixed_bf16.0.npy[22] = {{-?[0-9]}}
// ROW-NEXT: mixed_bf16.0.npy[23] = nan
// ROW: mixed_bf16.0.npy[45] = nan
// ROW-NEXT: mixed_bf16.0.npy[46] = {{-?[0-9]}}
// ROW-NOT: nan
// PASS: worst err/gate {{[0-9.]+}} -> PASS
// PASS: accel-run: 1 of 1 functions passed

// The NaN in B[2, 4] (transposed: B is [N, K]) makes column 2 of C NaN.
// RUN: accel-run %s --repeat=0 --entry=mixed_transposed_f32 --poison=1:94:nan | FileCheck %s --check-prefix=PASS

// Beyond the largest finite value there is only the NaN: 300 given to an
// f8E4M3FNUZ argument and -1e6 to an f8E5M2FNUZ one become 0x80, as APFloat
// converts them, and row 0 and column 5 of C are NaN.
// RUN: accel-run %s --repeat=0 --entry=mixed_bf16 --poison=0:0:300 --poison=1:5:-1e6 --save-outputs=%t | FileCheck %s --check-prefix=PASS
// RUN: %python %S/print_npy.py %t/mixed_bf16.0.npy | FileCheck %s --check-prefix=CROSS
// CROSS: mixed_bf16.0.npy[0] = nan
// CROSS: mixed_bf16.0.npy[22] = nan
// CROSS-NEXT: mixed_bf16.0.npy[23] = {{-?[0-9]}}
// CROSS: mixed_bf16.0.npy[28] = nan
// CROSS: mixed_bf16.0.npy[833] = nan
// CROSS-NOT: nan

// The largest finite values, both signs: 240 x 240 sums exactly in f32 (the
// exact tier, bit for bit); 57344 x 57344 = 3.3e9 is past f16, so those
// elements of C are, correctly, +-inf; 240 x 57344 in bf16.
// RUN: accel-run %s --repeat=0 --dist=exact --entry=e4m3fnuz_f32 --poison=0:0:240 --poison=0:1:-240 --poison=1:0:240 --poison=1:17:240 | FileCheck %s --check-prefix=EXACT
// EXACT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// RUN: accel-run %s --repeat=0 --entry=e5m2fnuz_f16 --poison=0:0:57344 --poison=1:0:57344 --poison=1:1:-57344 --save-outputs=%t | FileCheck %s --check-prefix=PASS
// RUN: %python %S/print_npy.py %t/e5m2fnuz_f16.0.npy | FileCheck %s --check-prefix=INF
// INF: e5m2fnuz_f16.0.npy[0] = inf
// INF-NEXT: e5m2fnuz_f16.0.npy[1] = -inf
// INF-NEXT: e5m2fnuz_f16.0.npy[2] = {{-?[0-9]}}
// RUN: accel-run %s --repeat=0 --entry=mixed_bf16 --poison=0:0:240 --poison=0:1:-240 --poison=1:0:-57344 --poison=1:23:57344 | FileCheck %s --check-prefix=PASS

// The systolic array has no fp8 datapath: a located error, exit code 1.
// RUN: not accel-run %s --target=systolic --entry=mixed_bf16 --repeat=0 2>&1 | FileCheck %s --check-prefix=SYSTOLIC
// SYSTOLIC: matmul-fnuz.mlir:[[@LINE+4]]:8: error: 'accel.matmul' op of 'f8E4M3FNUZ' x 'f8E5M2FNUZ' -> 'bf16' has no systolic lowering

func.func @mixed_bf16(%a: tensor<37x70xf8E4M3FNUZ>, %b: tensor<70x23xf8E5M2FNUZ>) -> tensor<37x23xbf16> {
  %c = tensor.empty() : tensor<37x23xbf16>
  %0 = accel.matmul ins(%a, %b : tensor<37x70xf8E4M3FNUZ>, tensor<70x23xf8E5M2FNUZ>) outs(%c : tensor<37x23xbf16>) -> tensor<37x23xbf16>
  return %0 : tensor<37x23xbf16>
}

func.func @e4m3fnuz_f32(%a: tensor<33x129xf8E4M3FNUZ>, %b: tensor<129x17xf8E4M3FNUZ>) -> tensor<33x17xf32> {
  %c = tensor.empty() : tensor<33x17xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x129xf8E4M3FNUZ>, tensor<129x17xf8E4M3FNUZ>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}

func.func @e5m2fnuz_f16(%a: tensor<5x64xf8E5M2FNUZ>, %b: tensor<64x31xf8E5M2FNUZ>) -> tensor<5x31xf16> {
  %c = tensor.empty() : tensor<5x31xf16>
  %0 = accel.matmul ins(%a, %b : tensor<5x64xf8E5M2FNUZ>, tensor<64x31xf8E5M2FNUZ>) outs(%c : tensor<5x31xf16>) -> tensor<5x31xf16>
  return %0 : tensor<5x31xf16>
}

func.func @mixed_transposed_f32(%a: tensor<19x45xf8E5M2FNUZ>, %b: tensor<27x45xf8E4M3FNUZ>) -> tensor<19x27xf32> {
  %c = tensor.empty() : tensor<19x27xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<19x45xf8E5M2FNUZ>, tensor<27x45xf8E4M3FNUZ>) outs(%c : tensor<19x27xf32>) -> tensor<19x27xf32>
  return %0 : tensor<19x27xf32>
}

func.func @scaled_accumulate_f32(%a: tensor<2x9x33xf8E4M3FNUZ>, %b: tensor<2x33x11xf8E5M2FNUZ>, %sa: f32, %sb: f32, %c: tensor<2x9x11xf32>) -> tensor<2x9x11xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x9x33xf8E4M3FNUZ>, tensor<2x33x11xf8E5M2FNUZ>) scales(%sa, %sb) outs(%c : tensor<2x9x11xf32>) -> tensor<2x9x11xf32>
  return %0 : tensor<2x9x11xf32>
}

func.func @linalg_mixed_f32(%a: tensor<13x40xf8E5M2FNUZ>, %b: tensor<40x9xf8E4M3FNUZ>) -> tensor<13x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<13x9xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<13x9xf32>) -> tensor<13x9xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<13x40xf8E5M2FNUZ>, tensor<40x9xf8E4M3FNUZ>) outs(%c : tensor<13x9xf32>) -> tensor<13x9xf32>
  return %0 : tensor<13x9xf32>
}
