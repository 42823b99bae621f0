// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-tile="matmul-outer=256,256,64 attention-outer=3,64,64"
// Options that cannot describe a tile are refused before any op is looked at.
// RUN: not accel-opt %s --accel-tile=target=h1000 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: accel-tile: unknown target 'h1000'
// RUN: not accel-opt %s --accel-tile=matmul-outer=64,64 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: accel-tile: matmul-outer needs 3 sizes >= 0 [M, N, K]
// RUN: not accel-opt %s --accel-tile=softmax-inner=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: accel-tile: softmax-inner needs 1 size >= 0 [rows]
// RUN: not accel-opt %s --accel-tile=levels=3 2>&1 | FileCheck %s --check-prefix=LEVELS
// LEVELS: error: accel-tile: levels must be 1 or 2, got 3
// RUN: not accel-opt %s --accel-tile=stages=-1 2>&1 | FileCheck %s --check-prefix=STAGES
// STAGES: error: accel-tile: stages must be >= 0, got -1

// Given tiles are checked against the target's hard limits, with the
// numbers: no kernel can use more shared memory than a block can have (an
// A100 block: 164 KiB less the 1 KiB the hardware reserves).
module attributes {accel.target = #accel.target<name = "a100", kind = nvptx, chip = "sm_80", peak_f16 = 312.0, features = ["cp.async"], local_memory_kib = 164, matrix_unit = [16, 8, 16], warp_size = 32>} {
  func.func @shared_memory_f16(%a: tensor<1024x1024xf16>, %b: tensor<1024x1024xf16>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-error @+1 {{accel-tile: matmul block tile 256x256x64 (f16, 3 stages) needs 196608 B of shared memory; a100 has 166912 B per block}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xf16>, tensor<1024x1024xf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// The same tile in f32 is twice the bytes: over an H100's 227 KiB too.
module attributes {accel.target = #accel.target<name = "h100", kind = nvptx, chip = "sm_90a", peak_f32 = 67.0, features = ["cp.async", "wgmma", "tma"], local_memory_kib = 228, matrix_unit = [64, 256, 16], warp_size = 32>} {
  func.func @shared_memory_f32(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-error @+1 {{accel-tile: matmul block tile 256x256x64 (f32, 3 stages) needs 393216 B of shared memory; h100 has 232448 B per block}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// The systolic array keeps C in its accumulator SRAM: a 256x256 i32 tile
// is four times Gemmini's 64 KiB (the i8 A and B tiles fit the scratchpad).
module attributes {accel.target = #accel.target<name = "array", kind = systolic, chip = "gemmini", peak_i8 = 0.512, local_memory_kib = 256, l2_kib = 64, matrix_unit = [16, 16, 1]>} {
  func.func @accumulator(%a: tensor<1024x1024xi8>, %b: tensor<1024x1024xi8>, %c: tensor<1024x1024xi32>) -> tensor<1024x1024xi32> {
    // expected-error @+1 {{accel-tile: matmul sram tile 256x256x64 (i8) needs 262144 B of accumulator SRAM, which has 65536 B}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xi8>, tensor<1024x1024xi8>) outs(%c : tensor<1024x1024xi32>) -> tensor<1024x1024xi32>
    return %0 : tensor<1024x1024xi32>
  }
}

// -----

// A and B of the tile must fit the scratchpad.
module attributes {accel.target = #accel.target<name = "small-array", kind = systolic, chip = "gemmini", peak_f32 = 0.1, local_memory_kib = 16, l2_kib = 256, matrix_unit = [8, 8, 1]>} {
  func.func @scratchpad(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-error @+1 {{accel-tile: matmul sram tile 256x256x64 (f32) needs 131072 B of scratchpad; small-array has 16384 B}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// A CPU cache that is too small only costs misses: a warning, and the op is
// tiled as asked.
module attributes {accel.target = #accel.target<name = "small-cpu", kind = cpu, chip = "haswell", peak_f32 = 0.096, features = ["avx2", "fma"], local_memory_kib = 32, l2_kib = 256, matrix_unit = [1, 8, 1]>} {
  func.func @cache(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-warning @+1 {{accel-tile: matmul l2 tile 256x256x64 (f32) needs 393216 B of L2; small-cpu has 262144 B}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// Model targets have no code generation and no tiling rules: every level's
// sizes must be given (here only the outer one is).
module attributes {accel.target = #accel.target<name = "gaudi-like", kind = model, chip = "hl-325", peak_bf16 = 1835.0, matrix_unit = [256, 256, 1]>} {
  func.func @model(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
    // expected-error @+1 {{accel-tile: 'gaudi-like' is a model target (no code generation): it has no tiling rules; give the tile sizes of every level}}
    %0 = accel.matmul ins(%a, %b : tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    return %0 : tensor<1024x1024xf32>
  }
}

// -----

// A tile of 3 query heads would straddle the key/value heads of a GQA group
// of 2.
func.func @gqa_heads(%q: tensor<1x4x128x32xf32>, %k: tensor<1x2x128x32xf32>, %v: tensor<1x2x128x32xf32>, %o: tensor<1x4x128x32xf32>) -> tensor<1x4x128x32xf32> {
  // expected-error @+1 {{accel-tile: attention l2 tile of 3 query heads neither divides nor is a multiple of the GQA group of 2 (query heads per key/value head)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x4x128x32xf32>, tensor<1x2x128x32xf32>, tensor<1x2x128x32xf32>) outs(%o : tensor<1x4x128x32xf32>) -> tensor<1x4x128x32xf32>
  return %0 : tensor<1x4x128x32xf32>
}
