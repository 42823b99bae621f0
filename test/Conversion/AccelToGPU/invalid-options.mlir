// Pass options and chips the kernels cannot have.
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not accel-opt %s --convert-accel-to-gpu="tile-k=-16" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not accel-opt %s --convert-accel-to-gpu="tile-m=24" 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not accel-opt %s --convert-accel-to-gpu="stages=1" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not accel-opt %s --convert-accel-to-gpu="warps=3" 2>&1 | FileCheck %s --check-prefix=WARPS
// RUN: not accel-opt %s --convert-accel-to-gpu="tile-m=256 tile-n=256 warps=64" 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_86 tile-m=256 tile-n=256 tile-k=64 stages=4" 2>&1 | FileCheck %s --check-prefix=SMEM
// A 256x256x32 tile in 4 stages fits sm_90's 227 KiB; warps follow the tile
// (16, so that each owns 64x64 of C).
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90 tile-m=256 tile-n=256 tile-k=32 stages=4" | FileCheck %s --check-prefix=FITS
// f8 has mma.sync on sm_89 and newer; the 8-bit kernels want B as [N, K].
// RUN: not accel-opt %S/Inputs/f8-matmul.mlir --convert-accel-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=F8
// RUN: not accel-opt %S/Inputs/f8-matmul.mlir --convert-accel-to-gpu="chip=sm_86" 2>&1 | FileCheck %s --check-prefix=F8-86
// 8-bit inputs multiply 32 deep.
// RUN: not accel-opt %S/Inputs/i8-matmul.mlir --convert-accel-to-gpu="tile-k=48" 2>&1 | FileCheck %s --check-prefix=TILE-K8

// CHIP: error: convert-accel-to-gpu: unknown chip 'sm_75' (known: sm_80, sm_86, sm_89, sm_90, sm_90a)
// NEG: error: convert-accel-to-gpu: tile sizes, warps and stages must not be negative
// TILE: error: 'accel.matmul' op tile 24x64x32 is not made of 16x16x16 blocks (ldmatrix x4 loads 16x16 and mma.sync m16n8k16 is 16 deep): tile-m, tile-n and tile-k must be multiples of 16
// STAGES: error: 'accel.matmul' op needs at least 2 stages (one slice copied while the warps multiply another), got 1
// WARPS: error: 'accel.matmul' op tile 64x64 cannot be split among 3 warps: warps = wm x wn needs tile-m a multiple of 16 wm and tile-n a multiple of 16 wn
// THREADS: error: 'accel.matmul' op needs 2048 threads per block; sm_80 allows 1024
// SMEM: error: 'accel.matmul' op tile 256x256x64 with 4 stages needs 282624 bytes of shared memory; sm_86 has 101376 per block
// FITS: block = array<i64: 512, 1, 1>, chip = "sm_90", dynamic_shared_memory = 149504 : i64, {{.*}} tile = array<i64: 256, 256, 32>, warps = array<i64: 4, 4>
// F8: f8-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op of 'f8E4M3FN' inputs has no GPU lowering yet for B stored [K, N]: 8-bit kernels read B as [N, K] (transpose_b), as ldmatrix cannot transpose 8-bit elements (transposing B into shared memory is not done)
// F8-86: f8-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op of 'f8E4M3FN' inputs has no GPU lowering: sm_86 has no matrix instruction for f8E4M3FN inputs (f8E4M3FN needs sm_89 or newer)
// TILE-K8: i8-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op tile-k = 48 is not a multiple of 32: 8-bit inputs are multiplied by mma.sync m16n8k32, 32 deep

func.func @mm(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
  %c = tensor.empty() : tensor<64x64xf32>
  %0 = accel.matmul ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

