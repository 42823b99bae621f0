// Each op's #accel.precision says what it becomes; without options only such
// ops are rewritten.
// RUN: accel-opt %s -split-input-file --accel-lower-precision | FileCheck %s
//
// The test-only debug-scale-error: B's scale times 1 + 0.25 where the
// matmul dequantises (A and B are still quantised with their own scales).
// RUN: accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=i8 debug-scale-error=0.25" | FileCheck %s --check-prefix=SKEW
// SKEW: %[[SA:.+]] = arith.select {{.*}} : f32
// SKEW: %[[SB:.+]] = arith.select {{.*}} : f32
// SKEW: %[[F:.+]] = arith.constant 1.250000e+00 : f32
// SKEW: %[[SKEWED:.+]] = arith.mulf %[[SB]], %[[F]] : f32
// SKEW: %[[A8:.+]] = linalg.generic
// SKEW: arith.divf %{{.+}}, %[[SA]] : f32
// SKEW: %[[B8:.+]] = linalg.generic
// SKEW: arith.divf %{{.+}}, %[[SB]] : f32
// SKEW: accel.matmul ins(%[[A8]], %[[B8]] : tensor<8x16xi8>, tensor<16x4xi8>) scales(%[[SA]], %[[SKEWED]])
// And with on-unsupported=emulate, in the dequantisation of B.
// RUN: accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=i8 target=x86-64-avx2 on-unsupported=emulate debug-scale-error=0.25" | FileCheck %s --check-prefix=SKEW-EMULATED
// SKEW-EMULATED: %[[SA:.+]] = arith.select {{.*}} : f32
// SKEW-EMULATED: %[[SB:.+]] = arith.select {{.*}} : f32
// SKEW-EMULATED: %[[SKEWED:.+]] = arith.mulf %[[SB]], %{{.+}} : f32
// SKEW-EMULATED: arith.divf %{{.+}}, %[[SA]] : f32
// SKEW-EMULATED: arith.sitofp
// SKEW-EMULATED-NEXT: arith.mulf %{{.+}}, %[[SA]] : f32
// SKEW-EMULATED: arith.divf %{{.+}}, %[[SB]] : f32
// SKEW-EMULATED: arith.sitofp
// SKEW-EMULATED-NEXT: arith.mulf %{{.+}}, %[[SKEWED]] : f32
// SKEW-EMULATED: accel.matmul

// bf16: the inputs are rounded (one truncf each), the product accumulates in
// f32 straight into the op's own C; no epilogue.
// CHECK-LABEL: func.func @bf16
// CHECK-SAME: (%[[A:.+]]: tensor<33x77xf32>, %[[B:.+]]: tensor<77x19xf32>, %[[C:.+]]: tensor<33x19xf32>)
// CHECK: %[[A16:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<33x77xf32>) outs(%{{.+}} : tensor<33x77xbf16>)
// CHECK:   arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[B16:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<77x19xf32>) outs(%{{.+}} : tensor<77x19xbf16>)
// CHECK: %[[R:.+]] = accel.matmul ins(%[[A16]], %[[B16]] : tensor<33x77xbf16>, tensor<77x19xbf16>) outs(%[[C]] : tensor<33x19xf32>)
// CHECK-NOT: accel.precision
// CHECK: return %[[R]]
func.func @bf16(%a: tensor<33x77xf32>, %b: tensor<77x19xf32>, %c: tensor<33x19xf32>) -> tensor<33x19xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<33x77xf32>, tensor<77x19xf32>) outs(%c : tensor<33x19xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<33x19xf32>
  return %0 : tensor<33x19xf32>
}

// -----

// f16 accumulation (asked for), rounded to bf16 on the way out, dynamic
// shapes: the f16 C is a new tensor sized from the op's C; the epilogue
// widens, rounds to bf16 and widens again into the op's C.
// CHECK-LABEL: func.func @f16_acc_bf16_out_dynamic
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<?x?xf32>)
// CHECK: %[[M:.+]] = tensor.dim %[[C]], %{{.+}} : tensor<?x?xf32>
// CHECK: %[[N:.+]] = tensor.dim %[[C]], %{{.+}} : tensor<?x?xf32>
// CHECK: %[[ACC:.+]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf16>
// CHECK: %[[R:.+]] = accel.matmul ins(%{{.+}}, %{{.+}} : tensor<?x32xf16>, tensor<32x?xf16>) outs(%[[ACC]] : tensor<?x?xf16>)
// CHECK: %[[OUT:.+]] = linalg.generic {{.*}} ins(%[[R]] : tensor<?x?xf16>) outs(%[[C]] : tensor<?x?xf32>)
// CHECK:   %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK:   %[[N16:.+]] = arith.truncf %[[W]] : f32 to bf16
// CHECK:   %[[W2:.+]] = arith.extf %[[N16]] : bf16 to f32
// CHECK:   linalg.yield %[[W2]]
// CHECK: return %[[OUT]]
func.func @f16_acc_bf16_out_dynamic(%a: tensor<?x32xf32>, %b: tensor<32x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x?xf32>) outs(%c : tensor<?x?xf32>) {accel.precision = #accel.precision<compute = f16, accumulate = f16, output = bf16>} -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// fp8 with dynamic scales: amax = max |x| over the whole tensor, scale =
// amax / 448 (0 -> 1), x / scale saturated to ±448 and rounded; the scales
// dequantise the product.
// CHECK-LABEL: func.func @f8_dynamic
// CHECK-SAME: (%[[A:.+]]: tensor<16x32xf32>, %[[B:.+]]: tensor<32x8xf32>)
// CHECK: %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[AMAX_T:.+]] = linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}], iterator_types = ["reduction", "reduction"]} ins(%[[A]] : tensor<16x32xf32>) outs(%[[ZERO]] : tensor<f32>)
// CHECK:   %[[ABS:.+]] = math.absf
// CHECK:   arith.maximumf %{{.+}}, %[[ABS]]
// CHECK: %[[AMAX:.+]] = tensor.extract %[[AMAX_T]][] : tensor<f32>
// CHECK: %[[LARGEST:.+]] = arith.constant 4.480000e+02 : f32
// CHECK: %[[Q:.+]] = arith.divf %[[AMAX]], %[[LARGEST]] : f32
// CHECK: %[[IS0:.+]] = arith.cmpf oeq, %[[Q]], %{{.+}} : f32
// CHECK: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[SA:.+]] = arith.select %[[IS0]], %[[ONE]], %[[Q]] : f32
// CHECK: %[[SB:.+]] = arith.select
// CHECK: %[[A8:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<16x32xf32>) outs(%{{.+}} : tensor<16x32xf8E4M3FN>)
// CHECK:   %[[X:.+]] = arith.divf %{{.+}}, %[[SA]] : f32
// CHECK:   %[[LO:.+]] = arith.maximumf %[[X]], %{{.+}} : f32
// CHECK:   %[[HI:.+]] = arith.minimumf %[[LO]], %{{.+}} : f32
// CHECK:   arith.truncf %[[HI]] : f32 to f8E4M3FN
// CHECK: %[[B8:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<32x8xf8E4M3FN>)
// CHECK:   arith.divf %{{.+}}, %[[SB]] : f32
// CHECK: accel.matmul ins(%[[A8]], %[[B8]] : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E4M3FN>) scales(%[[SA]], %[[SB]]) outs(%{{.+}} : tensor<16x8xf32>)
func.func @f8_dynamic(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = tensor.empty() : tensor<16x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Given scales are constants; overflow = nan: beyond the round-to-nearest
// boundary (61440 ties up to inf in f8E5M2, so from 61440 on) is NaN, with
// no clamp.
// CHECK-LABEL: func.func @f8_given_nan
// CHECK: %[[SA:.+]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[SB:.+]] = arith.constant 2.500000e-01 : f32
// CHECK: linalg.generic
// CHECK:   %[[X:.+]] = arith.divf %{{.+}}, %[[SA]] : f32
// CHECK-NOT: arith.minimumf
// CHECK:   %[[ABS:.+]] = math.absf %[[X]] : f32
// CHECK:   %[[BOUND:.+]] = arith.constant 6.144000e+04 : f32
// CHECK:   %[[BEYOND:.+]] = arith.cmpf oge, %[[ABS]], %[[BOUND]] : f32
// CHECK:   %[[NAN:.+]] = arith.constant 0x7FC00000 : f32
// CHECK:   %[[SEL:.+]] = arith.select %[[BEYOND]], %[[NAN]], %[[X]] : f32
// CHECK:   arith.truncf %[[SEL]] : f32 to f8E5M2
// CHECK: accel.matmul ins({{.*}}) scales(%[[SA]], %[[SB]])
func.func @f8_given_nan(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = tensor.empty() : tensor<16x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = f8E5M2, scales = given, scale_values = [0.5, 0.25], overflow = nan>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// f8E4M3FN's boundary is above 464 (464 ties down to 448).
// CHECK-LABEL: func.func @f8_e4m3_nan_boundary
// CHECK:   %[[BOUND:.+]] = arith.constant 4.640000e+02 : f32
// CHECK:   arith.cmpf ogt, %{{.+}}, %[[BOUND]] : f32
func.func @f8_e4m3_nan_boundary(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = tensor.empty() : tensor<16x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN, scales = given, scale_values = [1.0], overflow = nan>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// int8, dynamic: amax / 127, round to nearest even, saturate to ±127, i32
// accumulation inside the scaled op, dequantised into f32.
// CHECK-LABEL: func.func @i8_dynamic
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: %[[SA:.+]] = arith.select
// CHECK: %[[SB:.+]] = arith.select
// CHECK: %[[A8:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<16x32xi8>)
// CHECK:   %[[X:.+]] = arith.divf %{{.+}}, %[[SA]] : f32
// CHECK:   %[[R:.+]] = math.roundeven %[[X]] : f32
// CHECK:   %[[LO:.+]] = arith.maximumf %[[R]], %{{.+}} : f32
// CHECK:   %[[HI:.+]] = arith.minimumf %[[LO]], %{{.+}} : f32
// CHECK:   arith.fptosi %[[HI]] : f32 to i8
// CHECK: accel.matmul ins(%[[A8]], %{{.+}} : tensor<16x32xi8>, tensor<32x8xi8>) scales(%[[SA]], %[[SB]]) outs(%{{.+}} : tensor<16x8xf32>)
func.func @i8_dynamic(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = tensor.empty() : tensor<16x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// int8 without scales, accumulating, B transposed: the i32 product starts
// from zeros (C is f32 and is added in f32 afterwards), transpose_b kept.
// CHECK-LABEL: func.func @i8_unscaled_accumulate
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<16x8xf32>)
// CHECK-NOT: math.absf
// CHECK: %[[ACC:.+]] = tensor.empty() : tensor<16x8xi32>
// CHECK: %[[R:.+]] = accel.matmul transpose_b ins(%{{.+}}, %{{.+}} : tensor<16x32xi8>, tensor<8x32xi8>) outs(%[[ACC]] : tensor<16x8xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[R]], %[[C]] : tensor<16x8xi32>, tensor<16x8xf32>) outs(%[[C]] : tensor<16x8xf32>)
// CHECK:   %[[F:.+]] = arith.sitofp %{{.+}} : i32 to f32
// CHECK:   %[[S:.+]] = arith.addf %[[F]], %{{.+}} : f32
// CHECK:   linalg.yield %[[S]]
func.func @i8_unscaled_accumulate(%a: tensor<16x32xf32>, %b: tensor<8x32xf32>, %c: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<16x32xf32>, tensor<8x32xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = i8, scales = none>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// An f32 accumulator keeps `accumulate` and the op's C.
// CHECK-LABEL: func.func @bf16_accumulate
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<2x9x14xf32>)
// CHECK: accel.matmul accumulate ins(%{{.+}}, %{{.+}} : tensor<2x9x31xbf16>, tensor<2x31x14xbf16>) outs(%[[C]] : tensor<2x9x14xf32>)
func.func @bf16_accumulate(%a: tensor<2x9x31xf32>, %b: tensor<2x31x14xf32>, %c: tensor<2x9x14xf32>) -> tensor<2x9x14xf32> {
  %0 = accel.matmul accumulate ins(%a, %b : tensor<2x9x31xf32>, tensor<2x31x14xf32>) outs(%c : tensor<2x9x14xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<2x9x14xf32>
  return %0 : tensor<2x9x14xf32>
}

// -----

// Scaled fp8 into a bf16 output: the op dequantises straight into a bf16 C.
// CHECK-LABEL: func.func @f8_bf16_output
// CHECK: %[[OUT:.+]] = tensor.empty() : tensor<16x8xbf16>
// CHECK: %[[R:.+]] = accel.matmul ins({{.*}}) scales({{.*}}) outs(%[[OUT]] : tensor<16x8xbf16>)
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<16x8xbf16>) outs(%{{.+}} : tensor<16x8xf32>)
// CHECK:   arith.extf %{{.+}} : bf16 to f32
// CHECK-NOT: arith.truncf
func.func @f8_bf16_output(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %c = tensor.empty() : tensor<16x8xf32>
  %0 = accel.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%c : tensor<16x8xf32>) {accel.precision = #accel.precision<compute = f8E5M2, output = bf16>} -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

// Attention in bf16: Q, K and V rounded, the op's band, mask and O kept.
// CHECK-LABEL: func.func @attention_bf16
// CHECK-SAME: (%[[Q:.+]]: tensor<1x8x17x32xf32>, %[[K:.+]]: tensor<1x2x29x32xf32>, %[[V:.+]]: tensor<1x2x29x32xf32>, %[[M:.+]]: tensor<29xf32>, %[[O:.+]]: tensor<1x8x17x32xf32>)
// CHECK: %[[Q16:.+]] = linalg.generic {{.*}} ins(%[[Q]] : {{.*}}) outs(%{{.+}} : tensor<1x8x17x32xbf16>)
// CHECK: %[[K16:.+]] = linalg.generic {{.*}} ins(%[[K]] : {{.*}}) outs(%{{.+}} : tensor<1x2x29x32xbf16>)
// CHECK: %[[V16:.+]] = linalg.generic {{.*}} ins(%[[V]] : {{.*}}) outs(%{{.+}} : tensor<1x2x29x32xbf16>)
// CHECK: %[[R:.+]] = accel.attention causal scale(2.500000e-01) ins(%[[Q16]], %[[K16]], %[[V16]] : {{.*}}) mask(%[[M]] : tensor<29xf32>) outs(%[[O]] : tensor<1x8x17x32xf32>)
// CHECK: return %[[R]]
func.func @attention_bf16(%q: tensor<1x8x17x32xf32>, %k: tensor<1x2x29x32xf32>, %v: tensor<1x2x29x32xf32>, %m: tensor<29xf32>, %o: tensor<1x8x17x32xf32>) -> tensor<1x8x17x32xf32> {
  %0 = accel.attention causal scale(0.25) ins(%q, %k, %v : tensor<1x8x17x32xf32>, tensor<1x2x29x32xf32>, tensor<1x2x29x32xf32>) mask(%m : tensor<29xf32>) outs(%o : tensor<1x8x17x32xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<1x8x17x32xf32>
  return %0 : tensor<1x8x17x32xf32>
}

// -----

// Attention in fp8 with given scales: Q's and K's join the constant scale
// (1/sqrt(16) · 0.5 · 0.25 = 0.03125), V's multiplies the f32 output, which
// is then rounded to the requested f16.
// CHECK-LABEL: func.func @attention_f8_given
// CHECK-SAME: %[[O:[a-z0-9]+]]: tensor<1x2x8x16xf32>)
// CHECK: %[[SV:.+]] = arith.constant 1.250000e-01 : f32
// CHECK: %[[R:.+]] = accel.attention causal scale(3.125000e-02) ins({{.*}} : tensor<1x2x8x16xf8E4M3FN>, tensor<1x1x8x16xf8E4M3FN>, tensor<1x1x8x16xf8E4M3FN>) outs(%[[O]] : tensor<1x2x8x16xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<1x2x8x16xf32>) outs(%[[R]] : tensor<1x2x8x16xf32>)
// CHECK:   %[[X:.+]] = arith.mulf %{{.+}}, %[[SV]] : f32
// CHECK:   %[[H:.+]] = arith.truncf %[[X]] : f32 to f16
// CHECK:   arith.extf %[[H]] : f16 to f32
func.func @attention_f8_given(%q: tensor<1x2x8x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN, scales = given, scale_values = [0.5, 0.25, 0.125], output = f16>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// Attention into an f16 output without scales: O itself is f16.
// CHECK-LABEL: func.func @attention_f16_output
// CHECK: %[[R:.+]] = accel.attention ins({{.*}}) outs(%{{.+}} : tensor<1x2x8x16xf16>)
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<1x2x8x16xf16>)
func.func @attention_f16_output(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f16, output = f16>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// compute = f32 keeps an op; ops that are not f32 and ops without a policy
// are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf32>) {accel.precision = #accel.precision<compute = f32>}
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.+}} : tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<4x4xbf16>, tensor<4x4xbf16>)
// CHECK-NOT: linalg.generic
func.func @left_alone(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>, %a16: tensor<4x4xbf16>, %b16: tensor<4x4xbf16>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) {accel.precision = #accel.precision<compute = f32>} -> tensor<4x4xf32>
  %1 = accel.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = accel.matmul ins(%a16, %b16 : tensor<4x4xbf16>, tensor<4x4xbf16>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
