// accel-lower-precision on the CPU, per precision, over a matmul catalogue
// (square, tall-skinny, K not a multiple of 16, batched, transposed B,
// accumulating) and an attention catalogue (MHA, GQA, causal with Sq > Skv,
// an i1 mask with fully masked rows). The file is lowered first, so the
// oracle reads the rounded inputs, the scales and the conversions
// (replayed bit for bit) and gates each op with its real precision: the
// contract's reference is computed on the kernel's inputs (docs/numerics.md).
// accel-expand-f8-casts lowers the casts to fp8, which LLVM cannot.
//
// bf16 and f16, f32 accumulation.
// RUN: accel-opt %s --accel-lower-precision=compute=bf16 -o %t.bf16.mlir
// RUN: accel-run %t.bf16.mlir --repeat=0 --i1-zero-rows=2 | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision=compute=f16 -o %t.f16.mlir
// RUN: accel-run %t.f16.mlir --repeat=0 --i1-zero-rows=2 | FileCheck %s
// Rounded outputs and f16 accumulation (K <= 1024: no warning).
// RUN: accel-opt %s --accel-lower-precision="compute=bf16 output=bf16" -o %t.bf16out.mlir
// RUN: accel-run %t.bf16out.mlir --repeat=0 | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=f16 accumulate=f16 output=f16" -o %t.f16acc.mlir
// RUN: accel-run %t.f16acc.mlir --repeat=0 | FileCheck %s
//
// fp8 with dynamic scales (matmuls in fp8; attention, whose constant scale
// cannot take them, emulated), then with given scales (attention in fp8 too).
// RUN: accel-opt %s --accel-lower-precision="compute=f8E4M3FN on-unsupported=emulate" -o %t.e4m3.mlir
// RUN: accel-run %t.e4m3.mlir --repeat=0 | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=f8E4M3FN scales=given scale-values=0.0025" -o %t.e4m3given.mlir
// RUN: accel-run %t.e4m3given.mlir --repeat=0 --i1-zero-rows=2 | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=f8E5M2 on-unsupported=emulate" -o %t.e5m2.mlir
// RUN: accel-run %t.e5m2.mlir --repeat=0 --dist=normal | FileCheck %s
// RUN: accel-opt %s --accel-lower-precision="compute=f8E5M2 scales=given scale-values=3.0517578125e-05 output=bf16" -o %t.e5m2given.mlir
// RUN: accel-run %t.e5m2given.mlir --repeat=0 | FileCheck %s
//
// int8: dynamic symmetric scales, i32 accumulation, dequantised (attention
// emulated: the op has no int8 form).
// RUN: accel-opt %s --accel-lower-precision="compute=i8 on-unsupported=emulate" -o %t.i8.mlir
// RUN: accel-run %t.i8.mlir --repeat=0 --i1-zero-rows=2 | FileCheck %s
// RUN: accel-run %t.i8.mlir --repeat=0 --dist=normal --seed=7 | FileCheck %s
//
// bf16 on a CPU without AVX512-BF16, emulated: rounded inputs, f32 compute.
// RUN: accel-opt %s --accel-lower-precision="compute=bf16 target=x86-64-avx2 on-unsupported=emulate" -o %t.emulated.mlir
// RUN: accel-run %t.emulated.mlir --repeat=0 | FileCheck %s
//
// CHECK: accel-run: 10 of 10 functions passed
//
// The gates above check the lowered ops against their own inputs; this
// checks what the lowering computes against the f32 functions' reference on
// the same inputs: each precision's normwise error within the gate its
// roundings are expected to need (docs/numerics.md: about 1.5-2.5 times
// the error they make), so a lost scale, a wrong cast or a scale 10 % off
// fails (test/Tools/accel-run/precision-report.mlir).
// RUN: accel-run %s --repeat=0 --i1-zero-rows=2 --precision-report=compute=bf16 --precision-report="compute=f16 accumulate=f16 output=f16" --precision-report="compute=f8E4M3FN on-unsupported=emulate" --precision-report="compute=f8E5M2 scales=given scale-values=3.0517578125e-05 output=bf16" --precision-report="compute=i8 on-unsupported=emulate" | FileCheck %s --check-prefix=REPORT
// REPORT: accel-run: 10 of 10 functions passed
// REPORT: precision compute=bf16 (normwise error against each f32 reference; gate from the modelled roundings)
// REPORT-COUNT-10: err/gate 0.{{[0-9]+}} -> PASS
// REPORT: precision compute=f16 accumulate=f16 output=f16 (
// REPORT-COUNT-10: err/gate 0.{{[0-9]+}} -> PASS
// REPORT: precision compute=f8E4M3FN on-unsupported=emulate (
// REPORT-COUNT-10: err/gate 0.{{[0-9]+}} -> PASS
// REPORT: precision compute=f8E5M2 scales=given scale-values=3.0517578125e-05 output=bf16 (
// REPORT-COUNT-10: err/gate 0.{{[0-9]+}} -> PASS
// REPORT: precision compute=i8 on-unsupported=emulate (
// REPORT-COUNT-10: err/gate 0.{{[0-9]+}} -> PASS
// REPORT-NOT: FAIL
// REPORT: accel-run: precision report passed
//
// The exact tier: integer inputs in [-2, 2] are exact in bf16 and int8
// (without scales), every partial sum is exact in f32 and i32: the matmuls
// are bit-exact (gate 0).
// RUN: accel-run %t.bf16.mlir --repeat=0 --dist=exact | FileCheck %s --check-prefix=EXACT
// RUN: accel-opt %s --accel-lower-precision="compute=i8 scales=none on-unsupported=emulate" -o %t.i8exact.mlir
// RUN: accel-run %t.i8exact.mlir --repeat=0 --dist=exact | FileCheck %s --check-prefix=EXACT
// EXACT-LABEL: @mm_square
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT-LABEL: @mm_tall_skinny
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT-LABEL: @mm_k77
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT-LABEL: @mm_batched
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT-LABEL: @mm_transpose_b
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT-LABEL: @mm_accumulate
// EXACT-NEXT: max abs err 0.00e+00, max rel err 0.00e+00, worst err/gate 0.000 -> PASS
// EXACT: accel-run: 10 of 10 functions passed

func.func @mm_square(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

func.func @mm_tall_skinny(%a: tensor<515x48xf32>, %b: tensor<48x3xf32>) -> tensor<515x3xf32> {
  %c = tensor.empty() : tensor<515x3xf32>
  %0 = accel.matmul ins(%a, %b : tensor<515x48xf32>, tensor<48x3xf32>) outs(%c : tensor<515x3xf32>) -> tensor<515x3xf32>
  return %0 : tensor<515x3xf32>
}

func.func @mm_k77(%a: tensor<33x77xf32>, %b: tensor<77x19xf32>) -> tensor<33x19xf32> {
  %c = tensor.empty() : tensor<33x19xf32>
  %0 = accel.matmul ins(%a, %b : tensor<33x77xf32>, tensor<77x19xf32>) outs(%c : tensor<33x19xf32>) -> tensor<33x19xf32>
  return %0 : tensor<33x19xf32>
}

func.func @mm_batched(%a: tensor<3x17x23xf32>, %b: tensor<3x23x29xf32>) -> tensor<3x17x29xf32> {
  %c = tensor.empty() : tensor<3x17x29xf32>
  %0 = accel.matmul ins(%a, %b : tensor<3x17x23xf32>, tensor<3x23x29xf32>) outs(%c : tensor<3x17x29xf32>) -> tensor<3x17x29xf32>
  return %0 : tensor<3x17x29xf32>
}

func.func @mm_transpose_b(%a: tensor<33x65xf32>, %b: tensor<17x65xf32>) -> tensor<33x17xf32> {
  %c = tensor.empty() : tensor<33x17xf32>
  %0 = accel.matmul transpose_b ins(%a, %b : tensor<33x65xf32>, tensor<17x65xf32>) outs(%c : tensor<33x17xf32>) -> tensor<33x17xf32>
  return %0 : tensor<33x17xf32>
}

func.func @mm_accumulate(%a: tensor<2x3x9x31xf32>, %b: tensor<2x3x14x31xf32>, %c: tensor<2x3x9x14xf32>) -> tensor<2x3x9x14xf32> {
  %0 = accel.matmul transpose_b accumulate ins(%a, %b : tensor<2x3x9x31xf32>, tensor<2x3x14x31xf32>) outs(%c : tensor<2x3x9x14xf32>) -> tensor<2x3x9x14xf32>
  return %0 : tensor<2x3x9x14xf32>
}

func.func @att_mha(%q: tensor<2x4x33x64xf32>, %k: tensor<2x4x33x64xf32>, %v: tensor<2x4x33x64xf32>) -> tensor<2x4x33x64xf32> {
  %o = tensor.empty() : tensor<2x4x33x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x33x64xf32>, tensor<2x4x33x64xf32>, tensor<2x4x33x64xf32>) outs(%o : tensor<2x4x33x64xf32>) -> tensor<2x4x33x64xf32>
  return %0 : tensor<2x4x33x64xf32>
}

func.func @att_gqa(%q: tensor<1x8x17x32xf32>, %k: tensor<1x2x29x32xf32>, %v: tensor<1x2x29x32xf32>) -> tensor<1x8x17x32xf32> {
  %o = tensor.empty() : tensor<1x8x17x32xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x8x17x32xf32>, tensor<1x2x29x32xf32>, tensor<1x2x29x32xf32>) outs(%o : tensor<1x8x17x32xf32>) -> tensor<1x8x17x32xf32>
  return %0 : tensor<1x8x17x32xf32>
}

func.func @att_causal(%q: tensor<1x2x40x16xf32>, %k: tensor<1x2x13x16xf32>, %v: tensor<1x2x13x16xf32>) -> tensor<1x2x40x16xf32> {
  %o = tensor.empty() : tensor<1x2x40x16xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x2x40x16xf32>, tensor<1x2x13x16xf32>, tensor<1x2x13x16xf32>) outs(%o : tensor<1x2x40x16xf32>) -> tensor<1x2x40x16xf32>
  return %0 : tensor<1x2x40x16xf32>
}

func.func @att_mask(%q: tensor<2x4x9x16xf32>, %k: tensor<2x2x21x16xf32>, %v: tensor<2x2x21x16xf32>, %m: tensor<2x1x9x21xi1>) -> tensor<2x4x9x16xf32> {
  %o = tensor.empty() : tensor<2x4x9x16xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<2x4x9x16xf32>, tensor<2x2x21x16xf32>, tensor<2x2x21x16xf32>) mask(%m : tensor<2x1x9x21xi1>) outs(%o : tensor<2x4x9x16xf32>) -> tensor<2x4x9x16xf32>
  return %0 : tensor<2x4x9x16xf32>
}
