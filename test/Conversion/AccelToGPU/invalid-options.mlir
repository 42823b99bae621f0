// Pass options and chips the kernels cannot have.
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not accel-opt %s --convert-accel-to-gpu="tile-k=-16" 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not accel-opt %s --convert-accel-to-gpu="tile-m=4611686018427387904" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not accel-opt %s --accel-gpu-configure="stages=100" 2>&1 | FileCheck %s --check-prefix=HUGE-STAGES
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
// wgmma (mma=wgmma) where it cannot be used; mma=auto falls back to
// mma.sync instead.
// RUN: not accel-opt %s --convert-accel-to-gpu="mma=bogus" 2>&1 | FileCheck %s --check-prefix=MMA
// RUN: not accel-opt %s --convert-accel-to-gpu="mma=wgmma" 2>&1 | FileCheck %s --check-prefix=WG-CHIP
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma" 2>&1 | FileCheck %s --check-prefix=WG-K
// RUN: not accel-opt %S/Inputs/n36-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma" 2>&1 | FileCheck %s --check-prefix=WG-N
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=32" 2>&1 | FileCheck %s --check-prefix=WG-TILE-M
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-n=96" 2>&1 | FileCheck %s --check-prefix=WG-TILE-N
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-k=32" 2>&1 | FileCheck %s --check-prefix=WG-TILE-K
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=128 warps=4" 2>&1 | FileCheck %s --check-prefix=WG-WARPS
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma stages=1" 2>&1 | FileCheck %s --check-prefix=WG-STAGES
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=128 tile-n=256 stages=5" 2>&1 | FileCheck %s --check-prefix=WG-SMEM
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=256 tile-n=256" 2>&1 | FileCheck %s --check-prefix=WG-REGS
// RUN: accel-opt %s --convert-accel-to-gpu="chip=sm_90a mma=auto tile-m=32" | FileCheck %s --check-prefix=WG-AUTO
// 8-bit floats promote each K slice into a second accumulator: tileN
// registers a thread instead of tileN / 2 (a chosen tile narrows to fit).
// RUN: not accel-opt %S/Inputs/f8-promote-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-n=256" 2>&1 | FileCheck %s --check-prefix=WG-F8-REGS
// RUN: not accel-opt %S/Inputs/f8-promote-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=256 tile-n=128" 2>&1 | FileCheck %s --check-prefix=WG-F8-BLOCK
// RUN: accel-opt %S/Inputs/f8-promote-matmul.mlir --convert-accel-to-gpu="chip=sm_90a mma=wgmma tile-m=256" | FileCheck %s --check-prefix=WG-F8-NARROW

// MMA: error: convert-accel-to-gpu: mma must be auto, mma.sync, wgmma or fma for nvptx chips, got 'bogus'
// WG-CHIP: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): wgmma needs sm_90a (the arch-specific Hopper target); sm_80 has mma.sync only
// WG-K: k20-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): K = 20 is not a multiple of 8: wgmma's swizzled tiles are filled by 16-byte copies
// WG-N: n36-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): N = 36 is not a multiple of 8: wgmma's swizzled tiles of B as [K, N] are filled by 16-byte copies
// WG-TILE-M: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile-m = 32 is not 64, 128, 192 or 256 (a warpgroup owns 64 rows)
// WG-TILE-N: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile-n = 96 is not a multiple of 64 up to 256 (B as [K, N] is read in 64-column blocks)
// WG-TILE-K: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile-k = 32 is not 64 (128 bytes of K, one swizzled row)
// WG-WARPS: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): warps = 4 is not 8 (4 per warpgroup of 64 rows)
// WG-STAGES: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): stages = 1 is below 2
// WG-SMEM: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile 128x256x64 with 5 stages needs 246784 bytes of shared memory; sm_90a has 232448 per block
// WG-REGS: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile 256x256 needs about 200 registers in each of 512 threads; a multiprocessor has 65536 (at most 255 a thread)
// WG-AUTO: mma = "mma.sync"
// WG-F8-REGS: f8-promote-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile 64x256 needs about 328 registers in each of 128 threads (8-bit float inputs sum each K slice in a second accumulator); a multiprocessor has 65536 (at most 255 a thread)
// WG-F8-BLOCK: f8-promote-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op cannot use wgmma (mma=wgmma): tile 256x128 needs about 200 registers in each of 512 threads (8-bit float inputs sum each K slice in a second accumulator); a multiprocessor has 65536 (at most 255 a thread)
// WG-F8-NARROW: tile = array<i64: 256, 32, 128>
// WG-F8-NARROW: tile = array<i64: 256, 32, 128>

// CHIP: error: convert-accel-to-gpu: unknown chip 'sm_75' (known: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942, gfx1100)
// NEG: error: convert-accel-to-gpu: tile sizes, warps and stages must not be negative
// HUGE: error: convert-accel-to-gpu: tile sizes and warps above 65536 or stages above 64 fit no kernel
// HUGE-STAGES: error: accel-gpu-configure: tile sizes and warps above 65536 or stages above 64 fit no kernel
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

