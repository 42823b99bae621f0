// The fp8 overflow policy, numerically (docs/precision.md). With given scales
// of 1 and B = 1, C = A quantised: the values either side of f8E4M3FN's
// rounding boundary (464 rounds down to 448; 465 is beyond) and of
// f8E5M2's (61439 rounds to 57344; 61440 ties up to inf), a large value,
// and an ordinary one. Saturate gives the largest finite value, nan gives NaN
// beyond the boundary; int8 saturates to 127. accel-run checks the kernel
// against the oracle (NaN where NaN), print_npy the values themselves.
// RUN: rm -rf %t && mkdir -p %t/sat %t/nan %t/i8
// RUN: accel-opt %s --accel-lower-precision="compute=f8E4M3FN scales=given scale-values=1" -o %t/sat.mlir
// RUN: accel-run %t/sat.mlir --entry=e4m3 --repeat=0 --poison=0:0:464 --poison=0:1:465 --poison=0:2:1e6 --poison=0:3:-1e6 --poison=0:4:0.5 --poison=1:0:1 --save-outputs=%t/sat | FileCheck %s --check-prefix=OK
// RUN: %python %S/print_npy.py %t/sat/e4m3.0.npy | FileCheck %s --check-prefix=SAT
// RUN: accel-opt %s --accel-lower-precision="compute=f8E4M3FN scales=given scale-values=1 overflow=nan" -o %t/nan.mlir
// RUN: accel-run %t/nan.mlir --entry=e4m3 --repeat=0 --poison=0:0:464 --poison=0:1:465 --poison=0:2:1e6 --poison=0:3:-1e6 --poison=0:4:0.5 --poison=1:0:1 --save-outputs=%t/nan | FileCheck %s --check-prefix=OK
// RUN: %python %S/print_npy.py %t/nan/e4m3.0.npy | FileCheck %s --check-prefix=NAN
// RUN: accel-opt %s --accel-lower-precision="compute=f8E5M2 scales=given scale-values=1" -o %t/sat5.mlir
// RUN: accel-run %t/sat5.mlir --entry=e5m2 --repeat=0 --poison=0:0:61439 --poison=0:1:61440 --poison=0:2:1e6 --poison=0:3:-1e6 --poison=0:4:0.5 --poison=1:0:1 --save-outputs=%t/sat | FileCheck %s --check-prefix=OK
// RUN: %python %S/print_npy.py %t/sat/e5m2.0.npy | FileCheck %s --check-prefix=SAT5
// RUN: accel-opt %s --accel-lower-precision="compute=f8E5M2 scales=given scale-values=1 overflow=nan" -o %t/nan5.mlir
// RUN: accel-run %t/nan5.mlir --entry=e5m2 --repeat=0 --poison=0:0:61439 --poison=0:1:61440 --poison=0:2:1e6 --poison=0:3:-1e6 --poison=0:4:0.5 --poison=1:0:1 --save-outputs=%t/nan | FileCheck %s --check-prefix=OK
// RUN: %python %S/print_npy.py %t/nan/e5m2.0.npy | FileCheck %s --check-prefix=NAN5
// RUN: accel-opt %s --accel-lower-precision="compute=i8 scales=given scale-values=1" -o %t/i8.mlir
// RUN: accel-run %t/i8.mlir --entry=e4m3 --repeat=0 --poison=0:0:126.5 --poison=0:1:127.5 --poison=0:2:1e6 --poison=0:3:-1e6 --poison=0:4:0.5 --poison=1:0:1 --save-outputs=%t/i8 | FileCheck %s --check-prefix=OK
// RUN: %python %S/print_npy.py %t/i8/e4m3.0.npy | FileCheck %s --check-prefix=I8
// OK: -> PASS
// OK: accel-run: 1 of 1 functions passed
// SAT: e4m3.0.npy[0] = 448
// SAT-NEXT: e4m3.0.npy[1] = 448
// SAT-NEXT: e4m3.0.npy[2] = 448
// SAT-NEXT: e4m3.0.npy[3] = -448
// SAT-NEXT: e4m3.0.npy[4] = 0.5
// NAN: e4m3.0.npy[0] = 448
// NAN-NEXT: e4m3.0.npy[1] = nan
// NAN-NEXT: e4m3.0.npy[2] = nan
// NAN-NEXT: e4m3.0.npy[3] = nan
// NAN-NEXT: e4m3.0.npy[4] = 0.5
// SAT5: e5m2.0.npy[0] = 57344
// SAT5-NEXT: e5m2.0.npy[1] = 57344
// SAT5-NEXT: e5m2.0.npy[2] = 57344
// SAT5-NEXT: e5m2.0.npy[3] = -57344
// SAT5-NEXT: e5m2.0.npy[4] = 0.5
// NAN5: e5m2.0.npy[0] = 57344
// NAN5-NEXT: e5m2.0.npy[1] = nan
// NAN5-NEXT: e5m2.0.npy[2] = nan
// NAN5-NEXT: e5m2.0.npy[3] = nan
// NAN5-NEXT: e5m2.0.npy[4] = 0.5
// Round to nearest even, then saturate: 126.5 -> 126, 127.5 -> 127.
// I8: e4m3.0.npy[0] = 126
// I8-NEXT: e4m3.0.npy[1] = 127
// I8-NEXT: e4m3.0.npy[2] = 127
// I8-NEXT: e4m3.0.npy[3] = -127
// I8-NEXT: e4m3.0.npy[4] = 0

func.func @e4m3(%a: tensor<5x1xf32>, %b: tensor<1x1xf32>) -> tensor<5x1xf32> {
  %c = tensor.empty() : tensor<5x1xf32>
  %0 = accel.matmul ins(%a, %b : tensor<5x1xf32>, tensor<1x1xf32>) outs(%c : tensor<5x1xf32>) -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}

func.func @e5m2(%a: tensor<5x1xf32>, %b: tensor<1x1xf32>) -> tensor<5x1xf32> {
  %c = tensor.empty() : tensor<5x1xf32>
  %0 = accel.matmul ins(%a, %b : tensor<5x1xf32>, tensor<1x1xf32>) outs(%c : tensor<5x1xf32>) -> tensor<5x1xf32>
  return %0 : tensor<5x1xf32>
}
