// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-lower-precision
// Options that cannot describe a policy are refused before any op is looked at.
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision=compute=f99 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: accel-lower-precision: compute=f99 is not a type
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=bf16 accumulate=i32" 2>&1 | FileCheck %s --check-prefix=ACC
// ACC: error: accel-lower-precision: accumulate = i32 is not allowed with compute = bf16; expected f32 or bf16
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=f8E4M3FN scales=sometimes" 2>&1 | FileCheck %s --check-prefix=SCALES
// SCALES: error: accel-lower-precision: scales must be dynamic, given or none, got 'sometimes'
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=f8E4M3FN overflow=wrap" 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: error: accel-lower-precision: overflow must be saturate or nan, got 'wrap'
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=bf16 on-unsupported=ignore" 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// BADPOLICY: error: accel-lower-precision: on-unsupported must be error or emulate, got 'ignore'
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=i8 debug-scale-error=-1" 2>&1 | FileCheck %s --check-prefix=SKEW
// SKEW: error: accel-lower-precision: debug-scale-error must be finite and greater than -1, got -1
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=i8 debug-scale-error=inf" 2>&1 | FileCheck %s --check-prefix=SKEW-INF
// SKEW-INF: error: accel-lower-precision: debug-scale-error must be finite and greater than -1, got INF
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=bf16 target=h1000" 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: accel-lower-precision: unknown target 'h1000'
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision=output=bf16 2>&1 | FileCheck %s --check-prefix=NOCOMPUTE
// NOCOMPUTE: error: accel-lower-precision: accumulate, output, scales, scale-values and overflow need compute
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=f8E4M3FN scales=given scale-values=0.5,0" 2>&1 | FileCheck %s --check-prefix=VALUES
// VALUES: error: accel-lower-precision: scale_values must be positive and finite in f32, got 0
// A target given by name replaces the module's (none here).
// RUN: not accel-opt %S/Inputs/f32-matmul.mlir --accel-lower-precision="compute=bf16 target=x86-64-avx2" 2>&1 | FileCheck %s --check-prefix=NAMED
// NAMED: f32-matmul.mlir:3:8: error: compute=bf16 needs avx512bf16 (vdpbf16ps) on target 'x86-64-avx2' (chip haswell, features: avx2,fma,f16c); use on-unsupported=emulate to convert to f32

//===----------------------------------------------------------------------===//
// Target legality: each rule, with the target and what it lacks.
//===----------------------------------------------------------------------===//

// bf16 dot products on x86 are AVX512-BF16's vdpbf16ps; an AVX2 core has none.
module attributes {accel.target = #accel.target<name = "x86-64-avx2", kind = cpu, chip = "haswell", features = ["avx2", "fma", "f16c"], peak_f32 = 0.096>} {
  func.func @bf16_avx2(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{compute=bf16 needs avx512bf16 (vdpbf16ps) on target 'x86-64-avx2' (chip haswell, features: avx2,fma,f16c); use on-unsupported=emulate to convert to f32}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// int8 dot products on x86 are VNNI's vpdpbusd.
module attributes {accel.target = #accel.target<name = "x86-64-avx2", kind = cpu, chip = "haswell", features = ["avx2", "fma", "f16c"], peak_f32 = 0.096>} {
  func.func @i8_avx2(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{compute=i8 needs avx512vnni (VNNI vpdpbusd) on target 'x86-64-avx2'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// No x86 CPU has fp8 arithmetic, not even this AVX-512 one; f16 is a storage
// format there (converted for compute), so it is legal.
module attributes {accel.target = #accel.target<name = "x86-64-avx512", kind = cpu, chip = "znver5", features = ["avx512f", "avx512bf16", "avx512vnni"], peak_f32 = 0.222>} {
  func.func @f8_avx512(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=f8E4M3FN needs fp8 arithmetic, which x86 CPUs do not have on target 'x86-64-avx512'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN>} -> tensor<8x4xf32>
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
    %2 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<8x4xf32>
    %3 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0, %1, %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}

// -----

// AArch64: BFDOT/BFMMLA need the bf16 extension, SDOT/SMMLA dotprod or i8mm.
module attributes {accel.target = #accel.target<name = "old-arm", kind = cpu, chip = "cortex-a72", features = ["neon"], peak_f32 = 0.05>} {
  func.func @aarch64(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=bf16 needs bf16 (BFDOT/BFMMLA) on target 'old-arm'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<8x4xf32>
    // expected-error @+1 {{compute=i8 needs i8mm or dotprod (SMMLA/SDOT) on target 'old-arm'}}
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
  }
}

// -----

// fp8 tensor cores start with Ada (sm_89); an A100 has bf16 and int8.
module attributes {accel.target = #accel.target<name = "a100", kind = nvptx, chip = "sm_80", peak_f16 = 312.0, warp_size = 32>} {
  func.func @f8_sm80(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=f8E5M2 needs sm_89 or newer (fp8 mma: e4m3/e5m2) on target 'a100' (chip sm_80, features: )}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f8E5M2>} -> tensor<8x4xf32>
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
  }
}

// -----

// bf16 and int8 mma start with Ampere (sm_80), f16 with Volta (sm_70).
module attributes {accel.target = #accel.target<name = "t4", kind = nvptx, chip = "sm_75", peak_f16 = 65.0, warp_size = 32>} {
  func.func @sm75(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=bf16 needs sm_80 or newer (bf16 mma) on target 't4'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<8x4xf32>
    // expected-error @+1 {{compute=i8 needs sm_80 or newer (int8 mma) on target 't4'}}
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    %2 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
    return %0, %1, %2 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
  }
}

// -----

module attributes {accel.target = #accel.target<name = "p100", kind = nvptx, chip = "sm_60", peak_f16 = 21.0, warp_size = 32>} {
  func.func @sm60(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{compute=f16 needs sm_70 or newer (f16 mma) on target 'p100'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// Hopper has both fp8 formats.
module attributes {accel.target = #accel.target<name = "h100", kind = nvptx, chip = "sm_90a", peak_f8 = 1978.9, warp_size = 32>} {
  func.func @f8_sm90a(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// MI300X's fp8 is the FNUZ pair, which accel ops do not take.
module attributes {accel.target = #accel.target<name = "mi300x", kind = amdgpu, chip = "gfx942", peak_f8 = 2614.9, warp_size = 64>} {
  func.func @f8_gfx942(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=f8E4M3FN needs OCP fp8 (f8E4M3FN, f8E5M2) matrix instructions on target 'mi300x' (chip gfx942, features: ); gfx942's fp8 is the FNUZ variants (f8E4M3FNUZ, f8E5M2FNUZ), which accel ops do not accept yet; use on-unsupported=emulate to convert to f32}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN>} -> tensor<8x4xf32>
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
  }
}

// -----

module attributes {accel.target = #accel.target<name = "mi250x", kind = amdgpu, chip = "gfx90a", peak_f16 = 383.0, warp_size = 64>} {
  func.func @f8_gfx90a(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{compute=f8E5M2 needs OCP fp8 matrix instructions (gfx950, gfx12) on target 'mi250x'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f8E5M2>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// RDNA 2 has no matrix instructions at all.
module attributes {accel.target = #accel.target<name = "rx6900", kind = amdgpu, chip = "gfx1030", peak_f16 = 46.0, warp_size = 32>} {
  func.func @gfx1030(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
    // expected-error @+1 {{compute=bf16 needs matrix instructions (MFMA on gfx908, gfx90a, gfx94x, gfx950; WMMA on gfx11, gfx12) on target 'rx6900'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<8x4xf32>
    return %0 : tensor<8x4xf32>
  }
}

// -----

// Systolic arrays and described-only targets: the precision needs a peak.
module attributes {accel.target = #accel.target<name = "systolic-16x16", kind = systolic, chip = "gemmini-16x16", peak_f32 = 0.512, peak_bf16 = 0.512, peak_i8 = 0.512, matrix_unit = [16, 16, 1]>} {
  func.func @systolic_f16(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
    // expected-error @+1 {{compute=f16 needs a positive peak_f16 (the description has none) on target 'systolic-16x16'}}
    %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
    %1 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<8x4xf32>
    return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
  }
}

//===----------------------------------------------------------------------===//
// What the ops cannot express.
//===----------------------------------------------------------------------===//

// -----

func.func @attention_i8(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{accel.attention has no int8 form (Q, K and V are floats); use on-unsupported=emulate to quantise and dequantise around an f32 attention}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = i8>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// The attention's scale is a constant: a scale of Q·Kᵀ known only at run
// time cannot join it.
func.func @attention_f8_dynamic(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{accel.attention computes in fp8 only with given scales or none (a run-time scale of Q·Kᵀ cannot join its constant scale); use scales=given, scales=none or on-unsupported=emulate to quantise and dequantise around an f32 attention}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f8E4M3FN>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_f8_dynamic_head(%q: tensor<1x2x8x?xf32>, %k: tensor<1x2x8x?xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{folding the fp8 scales of Q and K into the attention's scale needs an explicit scale or a static head dimension}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x?xf32>, tensor<1x2x8x?xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f8E5M2, scales = given, scale_values = [0.5]>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

func.func @attention_scale_count(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{scale_values has 2 values; accel.attention needs 3 (Q, K, V), or 1 for all}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f8E5M2, scales = given, scale_values = [0.5, 0.25]>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// Attention has one form: f32 accumulation and softmax statistics.
func.func @attention_f16_accumulate(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %o: tensor<1x2x8x16xf32>) -> tensor<1x2x8x16xf32> {
  // expected-error @+1 {{accel.attention accumulates in f32; its policy asks for accumulate = f16}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) outs(%o : tensor<1x2x8x16xf32>) {accel.precision = #accel.precision<compute = f16, accumulate = f16>} -> tensor<1x2x8x16xf32>
  return %0 : tensor<1x2x8x16xf32>
}

// -----

// A policy on an op that already computes in low precision is a mistake.
func.func @not_f32(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'accel.precision' applies to f32 ops; this op's inputs are bf16}}
  %0 = accel.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16>} -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// f16 accumulation is allowed when asked for, but its worst-case bound
// γ_K(2^-11) means nothing once K·u > 1/2.
func.func @f16_accumulate_long_k(%a: tensor<8x2048xf32>, %b: tensor<2048x4xf32>, %c: tensor<8x4xf32>, %a2: tensor<8x?xf32>, %b2: tensor<?x4xf32>, %a3: tensor<8x129xf32>, %b3: tensor<129x4xf32>, %a4: tensor<8x1024xf32>, %b4: tensor<1024x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  // expected-warning @+1 {{f16 accumulation over K = 2048: past K = 1024 (K·u > 1/2) its worst-case error bound says nothing; use accumulate=f32}}
  %0 = accel.matmul ins(%a, %b : tensor<8x2048xf32>, tensor<2048x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16, accumulate = f16>} -> tensor<8x4xf32>
  // expected-warning @+1 {{f16 accumulation over a dynamic K: past K = 1024 (K·u > 1/2) its worst-case error bound says nothing; use accumulate=f32}}
  %1 = accel.matmul ins(%a2, %b2 : tensor<8x?xf32>, tensor<?x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16, accumulate = f16>} -> tensor<8x4xf32>
  // expected-warning @+1 {{bf16 accumulation over K = 129: past K = 128 (K·u > 1/2)}}
  %2 = accel.matmul ins(%a3, %b3 : tensor<8x129xf32>, tensor<129x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = bf16, accumulate = bf16>} -> tensor<8x4xf32>
  // K = 1024 is the last K the bound covers: no warning.
  %3 = accel.matmul ins(%a4, %b4 : tensor<8x1024xf32>, tensor<1024x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = #accel.precision<compute = f16, accumulate = f16>} -> tensor<8x4xf32>
  return %0, %1, %2, %3 : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}

//===----------------------------------------------------------------------===//
// Bad policies, refused by #accel.precision's verifier.
//===----------------------------------------------------------------------===//

// -----

// expected-error @+1 {{compute = f64 is not a precision accel ops compute in; expected f32, tf32, bf16, f16, f8E4M3FN, f8E5M2 or i8}}
func.func private @f() attributes {p = #accel.precision<compute = f64>}

// -----

// expected-error @+1 {{compute = f8E4M3FNUZ: accel ops do not accept the FNUZ fp8 variants (gfx942's); use f8E4M3FN or f8E5M2}}
func.func private @f() attributes {p = #accel.precision<compute = f8E4M3FNUZ>}

// -----

// expected-error @+1 {{accumulate = f16 is not allowed with compute = bf16; expected f32 or bf16}}
func.func private @f() attributes {p = #accel.precision<compute = bf16, accumulate = f16>}

// -----

// expected-error @+1 {{output = i32 is not allowed; expected f32, f16 or bf16 (the result returns to the op's f32)}}
func.func private @f() attributes {p = #accel.precision<compute = i8, output = i32>}

// -----

// expected-error @+1 {{scales = given needs compute = f8E4M3FN, f8E5M2 or i8, got bf16}}
func.func private @f() attributes {p = #accel.precision<compute = bf16, scales = given, scale_values = [2.0]>}

// -----

// expected-error @+1 {{scales = given needs scale_values (one per input, or one for all)}}
func.func private @f() attributes {p = #accel.precision<compute = i8, scales = given>}

// -----

// 1e40 is not an f32 value.
// expected-error @+1 {{scale_values must be positive and finite in f32, got 1.000000e+40}}
func.func private @f() attributes {p = #accel.precision<compute = i8, scales = given, scale_values = [1.0e40]>}

// -----

// expected-error @+1 {{scale_values are only used with scales = given}}
func.func private @f() attributes {p = #accel.precision<compute = f8E5M2, scale_values = [0.5]>}

// -----

// expected-error @+1 {{overflow = nan needs an fp8 compute type (i8 has no NaN to produce; i8 always saturates)}}
func.func private @f() attributes {p = #accel.precision<compute = i8, overflow = nan>}

// -----

// expected-error @+1 {{compute = f32 keeps the op in f32 and takes no other parameter}}
func.func private @f() attributes {p = #accel.precision<compute = f32, output = bf16>}

// -----

func.func @on_softmax(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'accel.precision' only applies to accel.matmul and accel.attention, not to accel.softmax}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {accel.precision = #accel.precision<compute = bf16>} -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @not_a_policy(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'accel.precision' must be an #accel.precision, got "bf16"}}
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.precision = "bf16"} -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

// accel.tf32_inputs (what compute = tf32 leaves on a matmul) promises TF32
// values in f32 inputs: on other ops, other types or as a value it is an
// error.
func.func @tf32_on_bf16(%a: tensor<8x16xbf16>, %b: tensor<16x4xbf16>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'accel.tf32_inputs' is a unit attribute of an accel.matmul with f32 A and B or an accel.attention with f32 Q, K and V (TF32 values held in f32: accel-lower-precision's compute = tf32)}}
  %0 = accel.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%c : tensor<8x4xf32>) {accel.tf32_inputs} -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @tf32_on_softmax(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'accel.tf32_inputs' is a unit attribute of an accel.matmul with f32 A and B}}
  %0 = accel.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%y : tensor<4x8xf32>) {accel.tf32_inputs} -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @tf32_not_unit(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'accel.tf32_inputs' is a unit attribute of an accel.matmul with f32 A and B}}
  %0 = accel.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>) outs(%c : tensor<8x4xf32>) {accel.tf32_inputs = true} -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @tf32_on_bf16_attention(%q: tensor<1x1x8x16xbf16>, %k: tensor<1x1x8x16xbf16>, %v: tensor<1x1x8x16xbf16>, %o: tensor<1x1x8x16xf32>) -> tensor<1x1x8x16xf32> {
  // expected-error @+1 {{'accel.tf32_inputs' is a unit attribute of an accel.matmul with f32 A and B or an accel.attention with f32 Q, K and V}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>, tensor<1x1x8x16xbf16>) outs(%o : tensor<1x1x8x16xf32>) {accel.tf32_inputs} -> tensor<1x1x8x16xf32>
  return %0 : tensor<1x1x8x16xf32>
}
