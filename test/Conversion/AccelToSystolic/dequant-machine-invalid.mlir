// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-systolic="rows=8 cols=4 acc-kib=2 spad-kib=2"
// accel.dequant_matmul on a machine too small for it (8x4 array, 128
// accumulator rows of 4, 2 KiB of scratchpad: 128 rows of 8 bf16, 64 of
// f32): a located error, never a program that overruns the SRAMs.

// bf16 activations: 40 blocks of C's columns need 4 * 40 + 2 accumulator
// rows a weight row (two of Cᵀ, two partial blocks, two scales).
func.func @accumulator(%x: tensor<160x16xbf16>, %w: tensor<8x16xi8>, %s: tensor<8x1xbf16>) -> tensor<160x8xf32> {
  %c = tensor.empty() : tensor<160x8xf32>
  // expected-error @below {{has no systolic lowering on this machine: its 40 blocks of C's columns need 162 accumulator rows a weight row, the accumulator has 128}}
  %y = accel.dequant_matmul bits(8) group(16) ins(%x, %w : tensor<160x16xbf16>, tensor<8x16xi8>) scales(%s : tensor<8x1xbf16>) outs(%c : tensor<160x8xf32>) -> tensor<160x8xf32>
  return %y : tensor<160x8xf32>
}

// -----

// Two sets of Aᵀ's tiles for 10 blocks of C's columns (160 rows) do not
// fit the 64 scratchpad rows.
func.func @scratchpad(%x: tensor<40x16xf32>, %w: tensor<8x16xi8>, %s: tensor<8x1xf32>) -> tensor<40x8xf32> {
  %c = tensor.empty() : tensor<40x8xf32>
  // expected-error @below {{has no systolic lowering on this machine: its weight tiles and Aᵀ need}}
  %y = accel.dequant_matmul bits(8) group(16) ins(%x, %w : tensor<40x16xf32>, tensor<8x16xi8>) scales(%s : tensor<8x1xf32>) outs(%c : tensor<40x8xf32>) -> tensor<40x8xf32>
  return %y : tensor<40x8xf32>
}
