// A hand-written #accel.lowering_config on the systolic target: the
// systolic kernel only, tiles the array and the SRAMs take, the same errors
// from the configuration stage and the conversion.
//
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-systolic-configure
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-systolic

func.func @gpu_kernel(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  // expected-error @below {{has a lowering_config for the wgmma kernel; the systolic array runs the systolic kernel}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma">} -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

func.func @tile_n(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  // expected-error @below {{has no os schedule on the 16x16 array whose double-buffered blocks fit 16384 scratchpad rows and 1024 accumulator rows with the given tile sizes (tile-n must be a multiple of cols, tile-k of rows for ws and is)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 20, 32], dataflow = "os">} -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

func.func @matmul_tile_of_two(%a: tensor<64x64xi8>, %b: tensor<64x64xi8>) -> tensor<64x64xi32> {
  %c = tensor.empty() : tensor<64x64xi32>
  // expected-error @below {{has a lowering_config tile of 2 entries; a matmul takes [M, N, K]}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xi8>, tensor<64x64xi8>) outs(%c : tensor<64x64xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 32]>} -> tensor<64x64xi32>
  return %0 : tensor<64x64xi32>
}

// -----

func.func @attention_dataflow(%q: tensor<1x1x32x16xf32>, %k: tensor<1x1x32x16xf32>, %v: tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32> {
  %o = tensor.empty() : tensor<1x1x32x16xf32>
  // expected-error @below {{has a lowering_config dataflow; attention runs weight-stationary on the array}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>) outs(%o : tensor<1x1x32x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", dataflow = "os">} -> tensor<1x1x32x16xf32>
  return %0 : tensor<1x1x32x16xf32>
}

// -----

// OS keeps a block's last tile in the array until the next block's first
// preload: with one buffer of C, the next block's initial C would land
// under it.
func.func @os_one_buffer_accumulate(%a: tensor<32x16xf32>, %b: tensor<16x16xf32>, %c: tensor<32x16xf32>) -> tensor<32x16xf32> {
  // expected-error @below {{has no os schedule on the 16x16 array whose double-buffered blocks fit 4096 scratchpad rows and 1024 accumulator rows with the given tile sizes and one buffer of C (tile-n must be a multiple of cols, tile-k of rows for ws and is; os with one buffer of C takes no initial C)}}
  %0 = accel.matmul accumulate ins(%a, %b : tensor<32x16xf32>, tensor<16x16xf32>) outs(%c : tensor<32x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 16, 16], stages = 1, dataflow = "os">} -> tensor<32x16xf32>
  return %0 : tensor<32x16xf32>
}

// -----

func.func @attention_stages(%q: tensor<1x1x32x16xf32>, %k: tensor<1x1x32x16xf32>, %v: tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32> {
  %o = tensor.empty() : tensor<1x1x32x16xf32>
  // expected-error @below {{has a lowering_config stages; it counts the buffers of a matmul's C blocks on the array}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>) outs(%o : tensor<1x1x32x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", stages = 1>} -> tensor<1x1x32x16xf32>
  return %0 : tensor<1x1x32x16xf32>
}

// -----

func.func @attention_keys(%q: tensor<1x1x32x16xf32>, %k: tensor<1x1x32x16xf32>, %v: tensor<1x1x32x16xf32>) -> tensor<1x1x32x16xf32> {
  %o = tensor.empty() : tensor<1x1x32x16xf32>
  // expected-error @below {{attention-tile-kv 20 is not a multiple of min(rows, cols) = 16}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>, tensor<1x1x32x16xf32>) outs(%o : tensor<1x1x32x16xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 20]>} -> tensor<1x1x32x16xf32>
  return %0 : tensor<1x1x32x16xf32>
}

// -----

// A config is checked also where an empty problem needs no schedule.
func.func @empty_gpu_kernel(%a: tensor<0x16xi8>, %b: tensor<16x16xi8>) -> tensor<0x16xi32> {
  %c = tensor.empty() : tensor<0x16xi32>
  // expected-error @below {{has a lowering_config for the wgmma kernel; the systolic array runs the systolic kernel}}
  %0 = accel.matmul ins(%a, %b : tensor<0x16xi8>, tensor<16x16xi8>) outs(%c : tensor<0x16xi32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma">} -> tensor<0x16xi32>
  return %0 : tensor<0x16xi32>
}

// -----

// accel.dequant_matmul's config: tile [M, N] (rows of A a block of C's
// columns, at most the array's columns; rows of W a strip, within the
// accumulator), no dataflow or stages.
func.func @dequant_tile_of_three(%a: tensor<4x256xbf16>, %w: tensor<96x128xi8>, %s: tensor<96x2xbf16>) -> tensor<4x96xf32> {
  %c = tensor.empty() : tensor<4x96xf32>
  // expected-error @below {{has a lowering_config tile of 3 entries; a weight-only quantised matmul takes [M, N] (rows of A a block, rows of W a strip)}}
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<4x256xbf16>, tensor<96x128xi8>) scales(%s : tensor<96x2xbf16>) outs(%c : tensor<4x96xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [4, 32, 16]>} -> tensor<4x96xf32>
  return %0 : tensor<4x96xf32>
}

// -----

func.func @dequant_dataflow(%a: tensor<4x256xbf16>, %w: tensor<96x128xi8>, %s: tensor<96x2xbf16>) -> tensor<4x96xf32> {
  %c = tensor.empty() : tensor<4x96xf32>
  // expected-error @below {{has a lowering_config dataflow or stages; a weight-only quantised matmul runs weight-stationary with its own buffering}}
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<4x256xbf16>, tensor<96x128xi8>) scales(%s : tensor<96x2xbf16>) outs(%c : tensor<4x96xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [4, 32], dataflow = "os">} -> tensor<4x96xf32>
  return %0 : tensor<4x96xf32>
}

// -----

func.func @dequant_wide_block(%a: tensor<40x256xbf16>, %w: tensor<96x128xi8>, %s: tensor<96x2xbf16>) -> tensor<40x96xf32> {
  %c = tensor.empty() : tensor<40x96xf32>
  // expected-error @below {{has a lowering_config tile [32, 16]: a block takes 1 to the array's 16 columns of rows of A, a strip at least one row of W}}
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<40x256xbf16>, tensor<96x128xi8>) scales(%s : tensor<96x2xbf16>) outs(%c : tensor<40x96xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [32, 16]>} -> tensor<40x96xf32>
  return %0 : tensor<40x96xf32>
}

// -----

func.func @dequant_tall_strip(%a: tensor<40x256xbf16>, %w: tensor<4096x128xi8>, %s: tensor<4096x2xbf16>) -> tensor<40x4096xf32> {
  %c = tensor.empty() : tensor<40x4096xf32>
  // expected-error @below {{has a lowering_config strip of 2048 rows of W; each takes 14 accumulator rows, the accumulator has 1024}}
  %0 = accel.dequant_matmul bits(4) group(128) ins(%a, %w : tensor<40x256xbf16>, tensor<4096x128xi8>) scales(%s : tensor<4096x2xbf16>) outs(%c : tensor<40x4096xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic", tile = [16, 2048]>} -> tensor<40x4096xf32>
  return %0 : tensor<40x4096xf32>
}
