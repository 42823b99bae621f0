// RUN: accel-opt %s -split-input-file --accel-roofline -verify-diagnostics -o /dev/null

// accel-roofline's note on each op: the tiles accel-tile chooses on the
// target and the numbers that chose them (docs/tiling.md). The targets are
// the catalogue's x86-64-avx512 and systolic-16x16 figures, and a model
// target.

// CPU: the register tile from 32 vector registers of 16 f32 lanes; l1 and
// l2 tiles whose A + B + C fit half of L1D and L2.
module attributes {accel.target = #accel.target<name = "x86-64-avx512", kind = cpu, chip = "znver5", features = ["avx512f", "avx512bf16", "fma"], peak_f32 = 0.222, memory_gbps = 36.0, local_memory_kib = 48, l2_kib = 1024, matrix_unit = [1, 16, 1]>} {
  func.func @gemm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-remark @+2 {{roofline on x86-64-avx512}}
    // expected-note @+1 {{tiles on x86-64-avx512: l2 192x256x128 (A 192x128 + B 128x256 f32 + C 192x256 f32 = 425984 B of 524288 B (1/2 of the 1 MiB L2), 29.5 FLOP/B; multiples of the l1 tile); l1 24x64x32 (A 24x32 + B 32x64 f32 + C 24x64 f32 = 17408 B of 24576 B (1/2 of the 48 KiB L1D), 5.6 FLOP/B; M, N multiples of the 6x64 register tile (6 rows x 4 vectors of 16 lanes: 24 accumulators + 4 + 1 of 32 registers))}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }

  // Attention: Q rows, a key/value block and the f32 logits and output.
  func.func @attention(%q: tensor<1x8x2048x64xf32>, %k: tensor<1x8x2048x64xf32>, %v: tensor<1x8x2048x64xf32>, %o: tensor<1x8x2048x64xf32>) -> tensor<1x8x2048x64xf32> {
    // expected-remark @+2 {{roofline on x86-64-avx512}}
    // expected-note @+1 {{tiles on x86-64-avx512: l2 1x192x256 (1 head(s) x Q 192x64 + K/V 256x(64+64) + f32 logits 192x256 and output 192x64 = 425984 B of 524288 B (1/2 of the 1 MiB L2), 29.5 FLOP/B; keys in blocks of 256 (accel-decompose-attention tile-kv)); l1 1x24x16 (1 head(s) x Q 24x64 + K/V 16x(64+64) + f32 logits 24x16 and output 24x64 = 22016 B of 24576 B (1/2 of the 48 KiB L1D), 4.5 FLOP/B)}}
    %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x2048x64xf32>, tensor<1x8x2048x64xf32>, tensor<1x8x2048x64xf32>) outs(%o : tensor<1x8x2048x64xf32>) -> tensor<1x8x2048x64xf32>
    return %0 : tensor<1x8x2048x64xf32>
  }
}

// -----

// The 16x16 array: int8 A and B in half of the 256 KiB scratchpad, the i32
// C in half of the 64 KiB accumulator, multiples of the array.
module attributes {accel.target = #accel.target<name = "systolic-16x16", kind = systolic, chip = "gemmini-16x16", peak_i8 = 0.512, memory_gbps = 16.0, local_memory_kib = 256, l2_kib = 64, matrix_unit = [16, 16, 1]>} {
  func.func @gemm_i8(%a: tensor<1024x1024xi8>, %b: tensor<1024x1024xi8>, %c: tensor<1024x1024xi32>) -> tensor<1024x1024xi32> {
    // expected-remark @+2 {{roofline on systolic-16x16}}
    // expected-note @+1 {{tiles on systolic-16x16: sram 64x128x512 (A 64x512 + B 512x128 i8 = 98304 B of 131072 B (1/2 of the 256 KiB scratchpad), C 64x128 i32 = 32768 B of 32768 B (1/2 of the 64 KiB accumulator); multiples of the 16x16 array; 64.0 FLOP/B); array 16x16x16 (one pass of the 16x16 array: K 16 rows into 16 columns)}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xi8>, tensor<1024x1024xi8>) outs(%c : tensor<1024x1024xi32>) -> tensor<1024x1024xi32>
    return %0 : tensor<1024x1024xi32>
  }
}

// -----

// A model target has no tiling rules.
module attributes {accel.target = #accel.target<name = "gaudi-like", kind = model, chip = "hl-325", peak_bf16 = 1835.0, memory_gbps = 3670.0, matrix_unit = [256, 256, 1]>} {
  func.func @model(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-remark @+2 {{roofline on gaudi-like}}
    // expected-note @+1 {{no tiles on gaudi-like: 'gaudi-like' is a model target (no code generation): it has no tiling rules}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}
