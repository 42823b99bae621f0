// The configuration stage's tiles for large TF32 matmuls (accel.tf32_inputs)
// fit each chip's shared memory: 16 f32 of K a slice (64 bytes, as the
// 16-bit kernels take), so a 128 x 128 tile's ring fits gfx942's 64 KiB LDS
// (2 stages) and sm_86's 99 KiB (3 stages); at 32 f32 a slice they did not.
// sm_90a with B as [N, K] takes wgmma (tile-k 32: one 128-byte row).
// RUN: accel-opt %s --accel-gpu-configure=chip=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: accel-opt %s --accel-gpu-configure=chip=sm_86 | FileCheck %s --check-prefix=SM86
// RUN: accel-opt %s --accel-gpu-configure=chip=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: accel-opt %s --accel-gpu-configure=chip=sm_90a | FileCheck %s --check-prefix=SM90
// A hand-given tile-k that is not whole m16n8k8 steps is refused:
// RUN: not accel-opt %s --accel-gpu-configure="chip=sm_80 tile-k=12" 2>&1 | FileCheck %s --check-prefix=BADK

// GFX942: kernel = "mfma"{{.*}}tile = [128, 128, 16]
// GFX942: kernel = "mfma"{{.*}}tile = [128, 128, 16]
// SM86: kernel = "mma.sync", tile = [128, 128, 16]{{.*}}stages = 3
// SM86: kernel = "mma.sync", tile = [128, 128, 16]{{.*}}stages = 3
// SM80: kernel = "mma.sync"{{.*}}tile = [128, 128, 16]
// SM90: kernel = "mma.sync"{{.*}}tile = [128, 128, 16]
// SM90: kernel = "wgmma"{{.*}}tile = [128, {{[0-9]+}}, 32]
// BADK: tile 128x128x12 is not made of 16x16x8 blocks (TF32: ldmatrix x4 loads 16 rows of 8 f32 and mma.sync m16n8k8 is 8 deep): tile-m and tile-n must be multiples of 16 and tile-k of 8

func.func @kn(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = accel.matmul ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<4096x4096xf32>) {accel.tf32_inputs} -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

func.func @nk(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>, %c: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %r = accel.matmul transpose_b ins(%a, %b : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%c : tensor<4096x4096xf32>) {accel.tf32_inputs} -> tensor<4096x4096xf32>
  return %r : tensor<4096x4096xf32>
}

// TF32 attention: key blocks of 64 where Q and two stages of K and V in f32
// fit, else 32 (D = 128 on sm_80, sm_86 and gfx942); mma.sync m16n8k8 on
// sm_90a too; past D = 128 the fma kernel.
// GFX942: kernel = "mfma", tile = [64, 32], warps = [4], mma = [16, 16, 8], stages = 1
// GFX942: kernel = "mfma", tile = [64, 64], warps = [4], mma = [16, 16, 8], stages = 1
// GFX942: kernel = "fma"
// SM86: kernel = "mma.sync", tile = [64, 32], warps = [4], mma = [16, 8, 8], stages = 2
// SM86: kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 8], stages = 2
// SM86: kernel = "fma"
// SM80: kernel = "mma.sync", tile = [64, 32], warps = [4], mma = [16, 8, 8], stages = 2
// SM80: kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 8], stages = 2
// SM80: kernel = "fma"
// SM90: kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 8], stages = 2
// SM90: kernel = "mma.sync", tile = [64, 64], warps = [4], mma = [16, 8, 8], stages = 2
// SM90: kernel = "fma"

func.func @attention_d128(%q: tensor<1x8x1024x128xf32>, %k: tensor<1x8x1024x128xf32>, %v: tensor<1x8x1024x128xf32>) -> tensor<1x8x1024x128xf32> {
  %o = tensor.empty() : tensor<1x8x1024x128xf32>
  %0 = accel.attention causal ins(%q, %k, %v : tensor<1x8x1024x128xf32>, tensor<1x8x1024x128xf32>, tensor<1x8x1024x128xf32>) outs(%o : tensor<1x8x1024x128xf32>) {accel.tf32_inputs} -> tensor<1x8x1024x128xf32>
  return %0 : tensor<1x8x1024x128xf32>
}

func.func @attention_d64(%q: tensor<1x8x1024x64xf32>, %k: tensor<1x8x1024x64xf32>, %v: tensor<1x8x1024x64xf32>) -> tensor<1x8x1024x64xf32> {
  %o = tensor.empty() : tensor<1x8x1024x64xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x8x1024x64xf32>, tensor<1x8x1024x64xf32>, tensor<1x8x1024x64xf32>) outs(%o : tensor<1x8x1024x64xf32>) {accel.tf32_inputs} -> tensor<1x8x1024x64xf32>
  return %0 : tensor<1x8x1024x64xf32>
}

func.func @attention_d256(%q: tensor<1x8x256x256xf32>, %k: tensor<1x8x256x256xf32>, %v: tensor<1x8x256x128xf32>) -> tensor<1x8x256x128xf32> {
  %o = tensor.empty() : tensor<1x8x256x128xf32>
  %0 = accel.attention ins(%q, %k, %v : tensor<1x8x256x256xf32>, tensor<1x8x256x256xf32>, tensor<1x8x256x128xf32>) outs(%o : tensor<1x8x256x128xf32>) {accel.tf32_inputs} -> tensor<1x8x256x128xf32>
  return %0 : tensor<1x8x256x128xf32>
}
