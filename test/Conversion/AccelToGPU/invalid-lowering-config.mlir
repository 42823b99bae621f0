// A hand-written #accel.lowering_config is checked against the chip by the
// rules the configuration stage applies to its own choices: the same located
// errors from accel-gpu-configure and from convert-accel-to-gpu.
//
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure="chip=sm_90a"
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=sm_90a"

func.func @amd_kernel(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config for the mfma kernel, which nvptx chips do not have}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mfma">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @systolic_kernel(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config for the systolic kernel, which nvptx chips do not have}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "systolic">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @not_a_config(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has an accel.lowering_config that is not an #accel.lowering_config attribute}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = "mma.sync"} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @matmul_tile_of_two(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config tile of 2 entries; a matmul takes [M, N, K]}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @not_16x16x16(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{tile 48x64x24 is not made of 16x16x16 blocks}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [48, 64, 24]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @bad_split(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{tile 64x64 cannot be split as warps = [3, 1]: each warp's part must be a multiple of 16 x 16}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64, 32], warps = [3, 1]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @wgmma_tile(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %c = tensor.empty() : tensor<256x256xf32>
  // expected-error @below {{cannot use wgmma (mma=wgmma): tile-m = 96 is not 64, 128, 192 or 256 (a warpgroup owns 64 rows)}}
  %0 = accel.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma", tile = [96, 128, 64]>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

func.func @wgmma_warps(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %c = tensor.empty() : tensor<256x256xf32>
  // expected-error @below {{cannot use wgmma (mma=wgmma): warps = [4, 2] is not [8, 1] (each warpgroup owns whole rows of the tile)}}
  %0 = accel.matmul ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%c : tensor<256x256xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma", tile = [128, 128, 64], warps = [4, 2]>} -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

func.func @wrong_instr(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config mma = [16, 8, 8]; its kernel multiplies with [16, 8, 16] (the chip and the element types fix it)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", mma = [16, 8, 8]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @attention_blocks(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  // expected-error @below {{has a lowering_config tile = [128, 128]; the mma.sync attention kernel works on blocks of 64 query rows and 64 keys}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [128, 128]>} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}

// -----

func.func @attention_warps(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  // expected-error @below {{has a lowering_config warps of 2 entries; attention takes [warps]}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma", warps = [8, 1]>} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}

// -----

func.func @attention_wgmma_mma(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  // expected-error @below {{has a lowering_config mma; the wgmma attention kernel multiplies with two instruction shapes}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma", mma = [64, 128, 16]>} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}

// -----

// Sizes are bounded before any arithmetic on them.
func.func @huge_warps(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config warps entry of 1152921504606846976; a block of sm_90a holds at most 32 warps}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64, 32], warps = [1152921504606846976, 1]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @huge_tile(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config tile entry of 4611686018427387904; no kernel takes more than 65536}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [4611686018427387904, 64, 32]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @huge_stages(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config of 1000 stages; no kernel takes more than 64}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", stages = 1000>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// TF32 attention (f32 inputs marked accel.tf32_inputs) runs on mma.sync
// m16n8k8 on sm_90a too.
func.func @attention_tf32_wgmma(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{cannot use wgmma (mma=wgmma): TF32 attention runs on mma.sync m16n8k8 (there is no TF32 wgmma attention kernel)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "wgmma">, accel.tf32_inputs} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_tf32_blocks(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{has a lowering_config tile = [64, 48]; the TF32 mma.sync attention kernel works on blocks of 64 query rows and 64 or 32 keys}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 48]>, accel.tf32_inputs} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

// Key blocks of 64 at D = 128 in 3 stages: 231 KiB, past sm_90a's 227.
func.func @attention_tf32_shared(%q: tensor<1x2x128x128xf32>, %k: tensor<1x2x128x128xf32>, %v: tensor<1x2x128x128xf32>) -> tensor<1x2x128x128xf32> {
  %o = tensor.empty() : tensor<1x2x128x128xf32>
  // expected-error @below {{needs 236544 bytes of shared memory (Q [64][128 + 4] and 3 stages of K [64][128 + 4] and V [64][128 + 4]); sm_90a has 232448 per block}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x128xf32>, tensor<1x2x128x128xf32>, tensor<1x2x128x128xf32>) outs(%o : tensor<1x2x128x128xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync", tile = [64, 64], stages = 3>, accel.tf32_inputs} -> tensor<1x2x128x128xf32>
  return %0 : tensor<1x2x128x128xf32>
}
