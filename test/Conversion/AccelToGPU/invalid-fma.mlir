// What the fma kernel (f32 inputs, FmaGemm.cpp) refuses, as a hand-written
// #accel.lowering_config would ask it: the same located errors from
// accel-gpu-configure and from convert-accel-to-gpu.
//
// RUN: accel-opt %s -split-input-file -verify-diagnostics --accel-gpu-configure="chip=sm_80"
// RUN: accel-opt %s -split-input-file -verify-diagnostics --convert-accel-to-gpu="chip=sm_80"

func.func @f32_mma_sync(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{of f32 inputs cannot use mma.sync: f32 is multiplied exactly by the fma kernel (TF32 tensor cores take inputs rounded by accel-lower-precision compute=tf32, as does gfx942's xf32 MFMA); give mma=auto or fma}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @f16_fma(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{of 'f16' inputs cannot use the fma kernel (mma=fma), which multiplies f32 inputs; sm_80 multiplies 'f16' with mma.sync}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma">} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tile(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{tile 48x64 does not fit the fma kernel: tile-m and tile-n must be 32, 64 or 128 (each thread owns 4 x 4 of C when either is 32, else 8 x 8)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [48, 64, 8]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @tile_k(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{tile-k = 6 does not fit the fma kernel: a multiple of 4 up to 64 (the slices are loaded in vectors of up to 4 elements of K, and the loop over a slice is unrolled)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [64, 64, 6]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @stages(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{stages = 3 does not apply to the fma kernel: it double-buffers shared memory (stages = 2), loading the next slice into registers while the threads multiply}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", stages = 3>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @warps(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{warps do not apply to the fma kernel's tile 64x64: it runs 64 threads (2 warps of 32), one for each 4 x 4 or 8 x 8 of the tile; give [2, 1] or none}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [64, 64, 8], warps = [2, 2]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @micro_tile(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  // expected-error @below {{has a lowering_config mma = [4, 4, 1]; its kernel multiplies with [8, 8, 1] (the chip and the element types fix it)}}
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [64, 64, 8], mma = [4, 4, 1]>} -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @attention_f16(%q: tensor<1x2x128x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x2x128x64xf16> {
  %o = tensor.empty() : tensor<1x2x128x64xf16>
  // expected-error @below {{of 'f16' inputs cannot use the fma kernel (mma=fma), which takes f32 Q, K and V; sm_80 runs 'f16' attention on mma.sync}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>) outs(%o : tensor<1x2x128x64xf16>) {accel.lowering_config = #accel.lowering_config<kernel = "fma">} -> tensor<1x2x128x64xf16>
  return %0 : tensor<1x2x128x64xf16>
}

// -----

func.func @attention_f32_mma_sync(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{of f32 inputs cannot use mma.sync: f32 attention runs on the fma kernel unless its inputs are TF32 values (accel-lower-precision's compute = tf32, on a chip with TF32 / xf32 matrix instructions); give mma=auto or fma}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "mma.sync">} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_f32_blocks(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{has a lowering_config tile = [64, 64]; the fma attention kernel works on blocks of 64 query rows and 32 keys}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", tile = [64, 64]>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_f32_stages(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{stages = 2 does not apply to the fma attention kernel: it keeps one buffer of K and V in shared memory}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", stages = 2>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_f32_warps(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{warps = 4 does not apply to the fma attention kernel: it runs 8 warps (4 lanes a query row)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", warps = [4]>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_f32_mma(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = tensor.empty() : tensor<1x2x128x64xf32>
  // expected-error @below {{has a lowering_config mma; the fma attention kernel uses no matrix instruction: give none}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) outs(%o : tensor<1x2x128x64xf32>) {accel.lowering_config = #accel.lowering_config<kernel = "fma", mma = [16, 8, 8]>} -> tensor<1x2x128x64xf32>
  return %0 : tensor<1x2x128x64xf32>
}

// -----

func.func @attention_f32_head_dim(%q: tensor<1x2x128x24xf32>, %k: tensor<1x2x128x24xf32>, %v: tensor<1x2x128x24xf32>) -> tensor<1x2x128x24xf32> {
  %o = tensor.empty() : tensor<1x2x128x24xf32>
  // expected-error @below {{head dimension D = 24 has no GPU lowering: the f32 (fma) attention kernel needs a multiple of 16 up to 256 (4 lanes a query, each holding runs of 4 of Q and O in registers)}}
  %0 = accel.attention ins(%q, %k, %v : tensor<1x2x128x24xf32>, tensor<1x2x128x24xf32>, tensor<1x2x128x24xf32>) outs(%o : tensor<1x2x128x24xf32>) -> tensor<1x2x128x24xf32>
  return %0 : tensor<1x2x128x24xf32>
}
