// The pass options give the policy of ops without an accel.precision; an
// op's own attribute wins.
// RUN: accel-opt %s --accel-lower-precision=compute=bf16 | FileCheck %s --check-prefix=BF16
// RUN: accel-opt %s --accel-lower-precision="compute=i8 on-unsupported=emulate" | FileCheck %s --check-prefix=I8
// Legality: bf16 on an AVX2 CPU is emulated (rounded, computed in f32).
// RUN: accel-opt %s --accel-lower-precision="compute=bf16 target=x86-64-avx2 on-unsupported=emulate" | FileCheck %s --check-prefix=EMULATE
// The module's target is the default; the AVX-512 machine has AVX512-BF16.
// RUN: accel-opt %s --accel-attach-target=name=x86-64-avx512 --accel-lower-precision=compute=bf16 | FileCheck %s --check-prefix=BF16

// BF16-LABEL: func.func @matmul
// BF16: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.+}} : tensor<8x4xf32>)
// I8-LABEL: func.func @matmul
// I8-COUNT-2: math.absf
// I8: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xi8>, tensor<16x4xi8>) scales(%{{.+}}, %{{.+}}) outs(%{{.+}} : tensor<8x4xf32>)
// EMULATE-LABEL: func.func @matmul
// EMULATE-SAME: (%[[A:.+]]: tensor<8x16xf32>, %[[B:.+]]: tensor<16x4xf32>, %[[C:.+]]: tensor<8x4xf32>)
// EMULATE: %[[AE:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<8x16xf32>) outs(%{{.+}} : tensor<8x16xf32>)
// EMULATE:   %[[T:.+]] = arith.truncf %{{.+}} : f32 to bf16
// EMULATE:   %[[E:.+]] = arith.extf %[[T]] : bf16 to f32
// EMULATE:   linalg.yield %[[E]]
// EMULATE: %[[BE:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16x4xf32>)
// EMULATE: accel.matmul ins(%[[AE]], %[[BE]] : tensor<8x16xf32>, tensor<16x4xf32>) outs(%[[C]] : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f32>}
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// BF16-LABEL: func.func @own_policy
// BF16: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xf16>, tensor<16x4xf16>)
// I8-LABEL: func.func @own_policy
// I8: accel.matmul ins(%{{.+}}, %{{.+}} : tensor<8x16xf16>, tensor<16x4xf16>)
func.func @own_policy(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// accel.attention has no int8 form: emulated, each input quantised with its
// dynamic scale and dequantised in one generic, the attention in f32.
// I8-LABEL: func.func @attention
// I8: %[[S:.+]] = arith.select
// I8: %[[QE:.+]] = linalg.generic {{.*}} outs(%{{.+}} : tensor<1x2x8x16xf32>)
// I8:   %[[X:.+]] = arith.divf %{{.+}}, %[[S]] : f32
// I8:   %[[R:.+]] = math.roundeven %[[X]]
// I8:   %[[I:.+]] = arith.fptosi %{{.+}} : f32 to i8
// I8:   %[[F:.+]] = arith.sitofp %[[I]] : i8 to f32
// I8:   %[[D:.+]] = arith.mulf %[[F]], %[[S]] : f32
// I8:   linalg.yield %[[D]]
// I8: accel.attention ins(%[[QE]], %{{.+}}, %{{.+}} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%{{.+}} : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f32>}
func.func @attention(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}
