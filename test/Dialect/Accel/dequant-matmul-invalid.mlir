// RUN: accel-opt %s -split-input-file -verify-diagnostics

// One case per verifier message of accel.dequant_matmul. Each says why the
// rule exists.

// Only the two packings the kernels unpack.
func.func @bits(%x: tensor<1x64xf32>, %w: tensor<4x16xi8>, %s: tensor<4x2xf32>,
                %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected bits 4 or 8, got 2}}
  %0 = accel.dequant_matmul bits(2) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x16xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A needs its M and K dimensions.
func.func @rank1(%x: tensor<64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                 %c: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected A of rank at least 2 ([batch..., M, K]), got rank 1}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// C has A's batch dimensions and M.
func.func @c_rank(%x: tensor<2x1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                  %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected C of A's rank 3, got rank 2}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<2x1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// One weight matrix, shared by every row of A.
func.func @w_rank(%x: tensor<1x64xf32>, %w: tensor<1x4x32xi8>, %s: tensor<4x2xf32>,
                  %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected weights of rank 2 ([N, K * bits / 8]), got rank 3}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<1x4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// The packing and the groups are laid out at compile time.
func.func @dynamic_k(%x: tensor<1x?xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                     %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected static K (A's last dimension, ?) and weights shape, got 'tensor<4x32xi8>'}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x?xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// An empty reduction or no output channels: nothing to dequantise.
func.func @empty(%x: tensor<1x0xf32>, %w: tensor<4x0xi8>, %s: tensor<4x0xf32>,
                 %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected K and N of at least 1, got K = 0 and N = 4}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x0xf32>, tensor<4x0xi8>)
         scales(%s : tensor<4x0xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Two int4 weights share a byte.
func.func @odd_k(%x: tensor<1x63xf32>, %w: tensor<4x32xi8>, %s: tensor<4x1xf32>,
                 %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected an even K for bits(4) (two weights a byte), got K = 63}}
  %0 = accel.dequant_matmul bits(4) group(63)
         ins(%x, %w : tensor<1x63xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x1xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// The bytes of a row hold exactly K weights.
func.func @w_bytes(%x: tensor<1x64xf32>, %w: tensor<4x64xi8>, %s: tensor<4x2xf32>,
                   %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected weights [N, K * bits / 8] = [4, 32] for K = 64 and bits(4), got 'tensor<4x64xi8>'}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x64xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Groups tile K exactly: no partial last group.
func.func @group(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                 %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected a group that divides K = 64, got 48}}
  %0 = accel.dequant_matmul bits(4) group(48)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A byte's two weights belong to one group.
func.func @odd_group(%x: tensor<1x18xf32>, %w: tensor<4x9xi8>, %s: tensor<4x2xf32>,
                     %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected an even group for bits(4) (a byte holds two weights of one group), got 9}}
  %0 = accel.dequant_matmul bits(4) group(9)
         ins(%x, %w : tensor<1x18xf32>, tensor<4x9xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// One scale per row and group.
func.func @scales(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<2x4xf32>,
                  %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected scales [N, K / group] = [4, 2], got 'tensor<2x4xf32>'}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<2x4xf32>) outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// Zero points come with the scales, one type for both.
func.func @zero_points(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                       %z: tensor<4x2xbf16>, %c: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{expected zero points of the scales' type 'tensor<4x2xf32>', got 'tensor<4x2xbf16>'}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) zero_points(%z : tensor<4x2xbf16>)
         outs(%c : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// C's leading dimensions are A's.
func.func @c_rows(%x: tensor<2x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                  %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{expected C dimension 0 (3) to match A's (2)}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<2x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

// One output column per weight row.
func.func @c_cols(%x: tensor<1x64xf32>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                  %c: tensor<1x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{expected C's last dimension to be N = 4 (the weights' rows), got 8}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xf32>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// The sum is f32: C keeps it, or rounds it once to A's type.
func.func @c_type(%x: tensor<1x64xbf16>, %w: tensor<4x32xi8>, %s: tensor<4x2xf32>,
                  %c: tensor<1x4xf16>) -> tensor<1x4xf16> {
  // expected-error @+1 {{expected C of f32 or of A's element type 'bf16', got 'f16'}}
  %0 = accel.dequant_matmul bits(4) group(32)
         ins(%x, %w : tensor<1x64xbf16>, tensor<4x32xi8>)
         scales(%s : tensor<4x2xf32>) outs(%c : tensor<1x4xf16>) -> tensor<1x4xf16>
  return %0 : tensor<1x4xf16>
}
