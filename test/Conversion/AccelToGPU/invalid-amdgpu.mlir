// What the AMD kernels of convert-accel-to-gpu refuse, each with a located
// error naming the chip (and the limit).
// RUN: not accel-opt %S/Inputs/f8-matmul.mlir --convert-accel-to-gpu=chip=gfx942 2>&1 | FileCheck %s --check-prefix=F8-942
// RUN: not accel-opt %S/Inputs/f8-matmul.mlir --convert-accel-to-gpu=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=F8-90A
// RUN: not accel-opt %S/Inputs/f8-matmul.mlir --convert-accel-to-gpu=chip=gfx1100 2>&1 | FileCheck %s --check-prefix=F8-90A
// RUN: not accel-opt %s --convert-accel-to-gpu="chip=gfx942 tile-m=128 tile-n=128 tile-k=64" 2>&1 | FileCheck %s --check-prefix=FMA-LDS
// RUN: not accel-opt %S/Inputs/f32-attention-d256.mlir --convert-accel-to-gpu=chip=gfx942 2>&1 | FileCheck %s --check-prefix=FMA-ATT-LDS
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 stages=3" 2>&1 | FileCheck %s --check-prefix=STAGES
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 tile-k=24" 2>&1 | FileCheck %s --check-prefix=TILE-K
// RUN: not accel-opt %S/Inputs/i8-matmul.mlir --convert-accel-to-gpu="chip=gfx942 tile-k=16" 2>&1 | FileCheck %s --check-prefix=TILE-K8
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx90a tile-m=256 tile-n=256 tile-k=64" 2>&1 | FileCheck %s --check-prefix=LDS
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 tile-m=128 tile-n=128 warps=1" 2>&1 | FileCheck %s --check-prefix=REGS
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 mma=wmma" 2>&1 | FileCheck %s --check-prefix=WMMA-CDNA
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx1100 mma=mfma" 2>&1 | FileCheck %s --check-prefix=MFMA-RDNA
// RUN: not accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 mma=mma.sync" 2>&1 | FileCheck %s --check-prefix=MMA-NV
// RUN: not accel-opt %S/convert-attention.mlir --split-input-file --convert-accel-to-gpu="chip=gfx942 stages=3" 2>&1 | FileCheck %s --check-prefix=ATTN-STAGES
// mma=auto is the chip's family.
// RUN: accel-opt %S/Inputs/k20-matmul.mlir --convert-accel-to-gpu="chip=gfx942 mma=auto" | FileCheck %s --check-prefix=AUTO

// F8-942: f8-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op of 'f8E4M3FN' inputs has no GPU lowering: gfx942 has no matrix instruction for f8E4M3FN inputs (gfx942's fp8 MFMA takes the FNUZ formats, f8E4M3FNUZ and f8E5M2FNUZ; the OCP formats need gfx950)
// F8-90A: f8-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op of 'f8E4M3FN' inputs has no GPU lowering: {{gfx90a|gfx1100}} has no matrix instruction for f8E4M3FN inputs (AMD fp8 matrix instructions start with gfx942)
// f32 inputs take the fma kernels, whose buffers must fit LDS.
// FMA-ATT-LDS: error: 'accel.attention' op needs 66560 bytes of LDS (K [32][256 + 4] and V [32][256 + 4] in f32); gfx942 has 65536 per block
// FMA-LDS: invalid-amdgpu.mlir:[[# @LINE + 3]]:8: error: 'accel.matmul' op tile 128x128x64 needs 135168 bytes of LDS; gfx942 has 65536 per block
func.func @f32(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %c = tensor.empty() : tensor<32x32xf32>
  %0 = accel.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

// STAGES: k20-matmul.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'accel.matmul' op stages = 3 does not apply to gfx942: its kernel double-buffers LDS (stages = 2), loading the next slice into registers while the waves multiply
// TILE-K: error: 'accel.matmul' op tile 64x64x24 does not fit the mfma instruction 16x16x16 of gfx942: tile-m and tile-n must be multiples of 16 and tile-k a multiple of 16
// TILE-K8: error: 'accel.matmul' op tile {{[0-9]+}}x{{[0-9]+}}x16 does not fit the mfma instruction 16x16x32 of gfx942: tile-m and tile-n must be multiples of 16 and tile-k a multiple of 32
// LDS: error: 'accel.matmul' op tile 256x256x64 with 2 stages needs 147456 bytes of LDS; gfx90a has 65536 per block
// REGS: error: 'accel.matmul' op tile 128x128 over 1 waves needs 256 accumulator registers in each lane; gfx942 has 256 VGPRs a lane (at most 192 for accumulators): give more warps or a smaller tile
// WMMA-CDNA: error: convert-accel-to-gpu: gfx942 has no wmma instructions (its matrix instruction is mfma)
// MFMA-RDNA: error: convert-accel-to-gpu: gfx1100 has no mfma instructions (its matrix instruction is wmma)
// MMA-NV: error: convert-accel-to-gpu: mma must be auto, mfma, wmma or fma for amdgpu chips, got 'mma.sync'
// ATTN-STAGES: error: 'accel.attention' op stages = 3 does not apply to gfx942: its attention kernel keeps one LDS buffer of K and V and loads the next key block into registers
// AUTO: amdgpu.mfma
